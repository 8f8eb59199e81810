// `arena dataset --config C --agent A --model M GAMES.jsonl... -o OUT.jsonl`: training examples for
// a model that is to play as agent A, in exactly the tokens A's requests carry. Each input line is
// one game, {"variant", "fen", "moves": [uci...], "labels": [uci per ply]} (what
// models/train/datagen.py writes); each output line is one position:
//   {"variant": ..., "prompt": [token ids A's request sends], "answer": [the label's ids, then EOS],
//    "legal": [[ids of each legal move, as an answer would be written, then EOS]...]}
// (plus "text" and "move" with --text). The prompts come from the agent itself: its LlmPlayer
// builds each request as in a game, over a backend that records the request instead of serving
// it, and the prompt is rendered and tokenized as the engine backend does (M's chat template and
// tokenizer; any GGUF with the vocabulary, random weights or not). The label is written in the
// agent's notation, as its answer would be. A move arena's rules refuse ends that game's
// examples (counted on stderr); so does a position A's prompt cannot hold (the model's context).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <expected>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agents/backend/engine_backend.h"
#include "agents/llm/llm_agent.h"
#include "agents/llm/position_text.h"
#include "arena/cli/command.h"
#include "arena/cli/process_env.h"
#include "arena/config/loader.h"
#include "arena/models/model_registry.h"
#include "engine/api.h"
#include "games/game.h"

namespace arena::cli {

namespace {

struct DatasetFlags {
  std::string config, agent, model, output;
  std::vector<std::string> inputs;
  bool text = false;
};

int fail(const std::string& message) {
  return cli::fail("dataset", message);
}

// A backend that serves nothing: it keeps the prompt tokens of the request it is given and answers
// with the text it was told to (the label), so the agent resolves its move at once.
class RecordingBackend final : public agents::backend::LlmBackend {
 public:
  explicit RecordingBackend(const engine::LoadedModel& model) : model_(model) {}

  std::shared_ptr<agents::backend::PendingCompletion> submit(
      agents::backend::CompletionRequest request,
      std::function<void(agents::backend::CompletionResult)> on_done) override {
    agents::backend::CompletionResult r;
    auto text = agents::backend::request_prompt_text(model_, request);
    if (!text) {
      r.failure = agents::MoveFailure{agents::FailureKind::BackendError, text.error()};
    } else {
      prompt_text = *text;
      prompt = model_.tokenize_prompt(*text);
      r.text = answer;
    }
    on_done(std::move(r));
    return nullptr;
  }
  std::string describe() const override { return "recording"; }

  std::string answer;  // the next request's answer
  std::string prompt_text;
  std::vector<engine::TokenId> prompt;

 private:
  const engine::LoadedModel& model_;
};

struct Counts {
  int64_t games = 0, positions = 0, refused = 0, too_long = 0;
  std::vector<std::string> first_refusals;  // what the first few refused moves were
  void refuse(const games::Game& game, std::string_view what) {
    if (++refused <= 5)
      first_refusals.push_back(
          fmt::format("{} ply {} ({}): {}", game.variant(), game.ply(), game.fen(), what));
  }
};

// A move's tokens as the model would answer it: the text, then the end of its turn.
std::vector<engine::TokenId> answer_tokens(const engine::LoadedModel& model, const std::string& move) {
  auto tokens = model.tokenizer().encode(move, /*add_special=*/false, /*parse_special=*/false);
  tokens.push_back(model.tokenizer().eos());
  return tokens;
}

// The examples of one game, written to `out`; why not when the game cannot be set up at all.
std::expected<void, std::string> write_game(const nlohmann::json& game_line, agents::Agent& agent,
                                            RecordingBackend& backend, const agents::LlmAgentConfig& llm,
                                            const engine::LoadedModel& model, bool with_text,
                                            std::ostream& out, Counts& counts) {
  const std::string variant = game_line.at("variant").get<std::string>();
  const std::string fen = game_line.at("fen").get<std::string>();
  const auto moves = game_line.at("moves").get<std::vector<std::string>>();
  const auto labels = game_line.at("labels").get<std::vector<std::string>>();
  auto game = games::make_game(variant, fen);
  if (!game) return std::unexpected(game.error().message);
  ++counts.games;
  agents::GameStart start;
  start.game_id = "dataset";
  start.variant = variant;
  start.start_fen = fen;
  if (auto failure = agent.new_game(start)) return std::unexpected(failure->message);
  const auto notation = llm.notation.value_or(agents::llm::default_notation(variant));
  const int32_t context = model.shape().context_length;
  agents::MoveRequest request;
  request.start_fen = fen;
  for (size_t ply = 0; ply < labels.size(); ++ply) {
    const auto legal = (*game)->legal_moves();
    const auto label = std::find(legal.begin(), legal.end(), labels[ply]);
    if (label == legal.end()) {
      counts.refuse(**game, "the label " + labels[ply] + " is not a legal move");
      break;
    }
    const auto legal_text = agents::llm::legal_moves_in(**game, notation);
    backend.answer = legal_text[static_cast<size_t>(label - legal.begin())];
    request.game = (*game)->clone();
    const agents::MoveResult result = agent.start_move(request)->wait();
    if (!result.ok()) {
      counts.refuse(**game,
                    "the agent did not take the label: " + (result.failure ? result.failure->message : ""));
      break;
    }
    const auto answer = answer_tokens(model, backend.answer);
    if (context > 0 && backend.prompt.size() + answer.size() > static_cast<size_t>(context)) {
      ++counts.too_long;
    } else {
      nlohmann::json legal_tokens = nlohmann::json::array();
      for (const auto& move : legal_text) legal_tokens.push_back(answer_tokens(model, move));
      nlohmann::json line{
          {"variant", variant}, {"prompt", backend.prompt}, {"answer", answer}, {"legal", legal_tokens}};
      if (with_text) {
        line["text"] = backend.prompt_text;
        line["move"] = backend.answer;
      }
      out << line.dump() << '\n';
      ++counts.positions;
    }
    if (ply >= moves.size()) break;
    if (auto applied = (*game)->apply(moves[ply]); !applied) {
      counts.refuse(**game, applied.error().message);
      break;
    }
    request.moves.push_back(moves[ply]);
  }
  agent.end_game({"*", "dataset"});
  return {};
}

int run_dataset(const DatasetFlags& f) {
  config::LoadOptions options;
  options.get_env = process_env;
  options.default_model_path = f.model;
  options.check_files = false;
  auto loaded = config::load_config(f.config, options);
  if (!loaded) {
    std::string message;
    for (const auto& d : loaded.error()) message += "\n  " + d.to_string();
    return fail("the config has errors:" + message);
  }
  const auto found = std::find_if(loaded->agents.begin(), loaded->agents.end(),
                                  [&](const agents::AgentConfig& a) { return a.name == f.agent; });
  if (found == loaded->agents.end() || !std::holds_alternative<agents::LlmAgentConfig>(found->params))
    return fail(fmt::format("{} has no LLM agent named '{}'", f.config, f.agent));
  const auto& llm = std::get<agents::LlmAgentConfig>(found->params);
  if (llm.history != agents::HistoryMode::None || llm.mode != agents::OutputMode::Constrained)
    return fail(fmt::format("agent '{}': examples are made for constrained agents without history", f.agent));

  auto model = engine::LoadedModel::open(f.model, {});
  if (!model) return fail(model.error().message);
  auto backend = std::make_shared<RecordingBackend>(**model);
  // The data may hold any variant (janggi rule sets the tournament does not list): the agent plays all.
  agents::AgentConfig agent_config = *found;
  agent_config.variants.clear();
  auto agent = agents::make_llm_agent(agent_config, backend);
  if (!agent) return fail(agent.error().message);

  std::ofstream out(f.output);
  if (!out) return fail("cannot write " + f.output);
  Counts counts;
  for (const auto& input : f.inputs) {
    std::ifstream in(input);
    if (!in) return fail("cannot read " + input);
    std::string line;
    for (int64_t number = 1; std::getline(in, line); ++number) {
      if (line.empty()) continue;
      std::expected<void, std::string> written = std::unexpected("not JSON");
      try {
        const auto game = nlohmann::json::parse(line);
        written = write_game(game, **agent, *backend, llm, **model, f.text, out, counts);
      } catch (const nlohmann::json::exception& e) {
        written = std::unexpected(fmt::format("not a game line (variant, fen, moves, labels): {}", e.what()));
      }
      if (!written) return fail(fmt::format("{}:{}: {}", input, number, written.error()));
    }
  }
  out.flush();
  if (!out) return fail("writing " + f.output + " failed");
  fmt::print(stderr,
             "arena dataset: {} games, {} examples; {} games cut short by a move arena refused, {} "
             "positions longer than the context\n",
             counts.games, counts.positions, counts.refused, counts.too_long);
  for (const auto& r : counts.first_refusals) fmt::print(stderr, "  refused: {}\n", r);
  return 0;
}

}  // namespace

void add_dataset_command(CLI::App& root, Action& action) {
  auto* cmd = root.add_subcommand(
      "dataset", "Training examples in the exact tokens an LLM agent's requests carry (models/train)");
  auto flags = std::make_shared<DatasetFlags>();
  cmd->add_option("--config", flags->config, "Tournament config that defines the agent")->required();
  cmd->add_option("--agent", flags->agent, "The LLM agent (constrained, no history)")->required();
  cmd->add_option("--model", flags->model, "GGUF whose tokenizer and chat template to use")->required();
  cmd->add_option("games", flags->inputs, "Game files (JSON lines: variant, fen, moves, labels)")->required();
  cmd->add_option("-o,--output", flags->output, "Output file (JSON lines)")->required();
  cmd->add_flag("--text", flags->text, "Also write each prompt's text and the answer");
  cmd->callback([flags, &action] { action = [flags] { return run_dataset(*flags); }; });
}

}  // namespace arena::cli
