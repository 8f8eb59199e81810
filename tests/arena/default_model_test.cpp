// The shipped default model (models/arena-chess-janggi.gguf): it loads as the llama model with
// the ChatML template it was trained with; its tokenizer gives back exactly the prompts its agent
// sends in both games; and through the engine its constrained agent plays only legal moves, in a
// chess and a janggi game against random moves.
#include "arena/models/default_model.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agents/agent_config.h"
#include "agents/backend/engine_backend.h"
#include "agents/llm/llm_agent.h"
#include "engine/api.h"
#include "games/game.h"
#include "tests/arena/config_test_paths.h"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path shipped_model() {
  const auto source = arena::test::source_dir();
  REQUIRE(source);
  const fs::path path = *source / arena::models::kDefaultModelFile;
  REQUIRE(fs::is_regular_file(path));
  return path;
}

// The model's own agent (configs/prompts/arena-model-*.txt), constrained and greedy.
agents::AgentConfig model_agent(const std::string& model_name) {
  const auto source = arena::test::source_dir();
  agents::LlmAgentConfig llm;
  llm.model = model_name;
  llm.system_prompt = read_file(*source / "configs/prompts/arena-model-system.txt");
  llm.move_template = read_file(*source / "configs/prompts/arena-model-move.txt");
  REQUIRE(!llm.system_prompt.empty());
  REQUIRE(!llm.move_template.empty());
  return agents::AgentConfig{"model", {}, llm};
}

// Keeps each request's prompt text and answers with the first legal choice.
class PromptRecorder final : public agents::backend::LlmBackend {
 public:
  explicit PromptRecorder(const engine::LoadedModel& model) : model_(model) {}
  std::shared_ptr<agents::backend::PendingCompletion> submit(
      agents::backend::CompletionRequest request,
      std::function<void(agents::backend::CompletionResult)> on_done) override {
    auto text = agents::backend::request_prompt_text(model_, request);
    REQUIRE(text);
    prompts.push_back(*text);
    agents::backend::CompletionResult r;
    r.text = request.choices.at(0);
    on_done(std::move(r));
    return nullptr;
  }
  std::string describe() const override { return "recorder"; }
  std::vector<std::string> prompts;

 private:
  const engine::LoadedModel& model_;
};

agents::MoveRequest request_for(const games::Game& game) {
  agents::MoveRequest r;
  r.game = game.clone();
  r.start_fen = game.start_fen();
  r.moves = game.moves();
  return r;
}

}  // namespace

TEST_CASE("the default model loads, and its tokenizer gives back its agent's prompts", "[arena]") {
  auto model = engine::LoadedModel::open(shipped_model().string(), engine::ModelOptions{1, ""});
  REQUIRE(model);
  CHECK((*model)->chat().has_value());  // ChatML, detected from the file's template
  const auto& tok = (*model)->tokenizer();
  CHECK(tok.vocab_size() == 1024);

  auto recorder = std::make_shared<PromptRecorder>(**model);
  auto agent = agents::make_llm_agent(model_agent("default"), recorder);
  REQUIRE(agent);
  for (const std::string variant : {"chess", "janggi", "janggimodern"}) {
    auto game = games::make_game(variant);
    REQUIRE(game);
    agents::GameStart start;
    start.variant = variant;
    start.start_fen = (*game)->start_fen();
    REQUIRE(!(*agent)->new_game(start));
    // A few plies in, so the prompt has a last move and captures are possible.
    for (int ply = 0; ply < 6; ++ply) {
      const auto result = (*agent)->start_move(request_for(**game))->wait();
      REQUIRE(result.ok());
      REQUIRE((*game)->apply(result.move));
    }
    for (const auto& text : recorder->prompts) {
      INFO(text);
      const auto ids = (*model)->tokenize_prompt(text);
      CHECK(ids.size() < static_cast<size_t>((*model)->shape().context_length));
      CHECK(tok.decode(ids, /*special=*/true) == text);
    }
    recorder->prompts.clear();
  }
}

TEST_CASE("the default model's constrained agent plays only legal moves in chess and janggi", "[arena]") {
  auto model = engine::LoadedModel::open(shipped_model().string(), engine::ModelOptions{2, ""});
  REQUIRE(model);
  engine::EngineConfig ec;
  ec.cache.kv_cache_bytes = size_t(16) << 20;
  auto eng = (*model)->create_engine(ec);
  REQUIRE(eng);
  agents::ModelBinding binding{"default", model->get(), eng->get()};
  agents::AgentEnvironment env;
  env.find_model = [&](const std::string& name) { return name == "default" ? &binding : nullptr; };
  env.get_env = [](const std::string&) { return std::nullopt; };
  auto llm = agents::make_agent(model_agent("default"), env);
  REQUIRE(llm);
  auto random = agents::make_agent(agents::AgentConfig{"random", {}, agents::RandomAgentConfig{5}}, env);
  REQUIRE(random);

  for (const std::string variant : {"chess", "janggi"}) {
    auto game = games::make_game(variant);
    REQUIRE(game);
    for (auto* a : {llm->get(), random->get()}) {
      agents::GameStart start;
      start.variant = variant;
      start.start_fen = (*game)->start_fen();
      start.side = a == llm->get() ? games::Side::First : games::Side::Second;
      REQUIRE(!a->new_game(start));
    }
    int model_moves = 0;
    for (int ply = 0; ply < 40 && (*game)->outcome().result == games::Outcome::Result::Ongoing; ++ply) {
      agents::Agent& mover = ply % 2 == 0 ? **llm : **random;
      const auto result = mover.start_move(request_for(**game))->wait_for(std::chrono::seconds(60));
      REQUIRE(result);
      INFO(variant << " ply " << ply << ": " << (result->failure ? result->failure->message : result->move));
      REQUIRE(result->ok());
      const auto legal = (*game)->legal_moves();
      REQUIRE(std::find(legal.begin(), legal.end(), result->move) != legal.end());
      REQUIRE((*game)->apply(result->move));
      model_moves += ply % 2 == 0;
    }
    CHECK(model_moves >= 10);
  }
}

TEST_CASE("the default model is found beside the config, else in the checkout arena was built from",
          "[arena]") {
  const agents::EnvReader no_env = [](const std::string&) { return std::optional<std::string>(); };
  const fs::path dir = fs::temp_directory_path() / ("arena_default_model_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "configs/eval");
  fs::create_directories(dir / "models");
  std::ofstream(dir / arena::models::kDefaultModelFile) << "GGUF";
  // A config in the folder's configs/ or one below it: the models/ folder above it.
  CHECK(arena::models::default_model_path(dir / "configs/eval/x.yaml", no_env) ==
        (dir / arena::models::kDefaultModelFile).string());
  CHECK(arena::models::default_model_path(dir / "configs/x.yaml", no_env) ==
        (dir / arena::models::kDefaultModelFile).string());
  // A config elsewhere: the checkout's own file (this test's build belongs to the checkout).
  const auto source = arena::test::source_dir();
  REQUIRE(source);
  CHECK(fs::equivalent(arena::models::default_model_path("/nonexistent/config.yaml", no_env),
                       *source / arena::models::kDefaultModelFile));
  const agents::EnvReader env = [](const std::string& name) {
    return name == "ARENA_DEFAULT_MODEL" ? std::optional<std::string>("/some/model.gguf") : std::nullopt;
  };
  CHECK(arena::models::default_model_path(dir / "configs/x.yaml", env) == "/some/model.gguf");
  fs::remove_all(dir);
}
