// `arena demo`: self-play between LLM agents until the tournament runner exists. Several games
// run at once; whenever a game's side to move is idle its agent asks the engine for a move, so
// the engine batches every game's request into shared forward passes and serves the common
// system prompt from its prefix cache. Moves are constrained to the legal ones, so every answer
// is playable even with a random-weight model (which plays legal but aimless moves).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agents/llm_agent.h"
#include "arena/cli/command.h"
#include "engine/api.h"
#include "engine/model/model.h"
#include "engine/tokenizer/chat_template.h"
#include "games/game.h"

namespace arena::cli {

namespace {

struct DemoFlags {
  std::string model;
  std::string game = "chess";
  int num_games = 4;
  int max_plies = 40;
  float temperature = 0.8f;
  uint64_t seed = 1;
  int threads = 0;
};

// One game in flight: the position, the moves played in human notation, and the pending ask.
struct Table {
  std::unique_ptr<games::Game> game;
  std::vector<std::string> moves;
  std::optional<engine::RequestHandle> pending;
  std::string result;  // set when the game is over (outcome, forfeit or ply limit)
};

int fail(const std::string& message) {
  fmt::print(stderr, "arena demo: error: {}\n", message);
  return 1;
}

// Collects a finished request: plays the move or records the forfeit.
void settle(Table& t, int index, const agents::LlmAgent& agent, int max_plies) {
  const engine::GenerateResult r = t.pending->wait();
  t.pending.reset();
  auto move = agent.read_move(*t.game, r);
  if (!move) {
    t.result = fmt::format("forfeit by {}: {}", agent.name(), move.error());
    return;
  }
  const auto human = t.game->legal_moves_human();
  const auto uci = t.game->legal_moves();
  for (size_t i = 0; i < uci.size(); ++i)
    if (uci[i] == *move) t.moves.push_back(human[i]);
  (void)t.game->apply(*move);
  fmt::print("game {:>2}  ply {:>3}  {:<10} {:<8} ttft {:6.1f} ms  cached {:>4}/{:<4} prompt tokens\n",
             index + 1, t.game->ply(), agent.name(), t.moves.back(), r.ttft_seconds * 1e3,
             r.num_cached_prompt_tokens, r.num_prompt_tokens);
  if (const auto outcome = t.game->outcome(); outcome.finished())
    t.result = outcome.reason;
  else if (t.game->ply() >= max_plies)
    t.result = fmt::format("unfinished after {} plies", max_plies);
}

int run_demo(const DemoFlags& f) {
  fmt::print(
      "arena demo: the tournament runner and the board view are not built yet; this is LLM self-play\n"
      "through the batching engine ({} {} games at once, model {}).\n\n",
      f.num_games, f.game, f.model);
  auto model = engine::Model::load(f.model, f.threads);
  if (!model) return fail(model.error().message);
  auto chat = engine::ChatTemplate::for_model((*model)->file(), (*model)->tokenizer());
  if (!chat) return fail(chat.error().message);

  engine::EngineConfig config;
  config.cache.kv_cache_bytes = size_t{256} << 20;
  config.logger = [](std::string_view line) { spdlog::info("engine: {}", line); };
  auto engine = engine::Engine::create((*model)->network(), (*model)->tokenizer(), config);
  if (!engine) return fail(engine.error().message);

  auto make_agent = [&](std::string name, uint64_t seed) {
    agents::LlmAgentConfig c;
    c.name = std::move(name);
    c.sampling.temperature = f.temperature;
    c.sampling.seed = seed;
    return agents::LlmAgent(**engine, *chat, c);
  };
  // Each game gets its own pair of agents (same persona, own sampling seeds), so games differ.
  std::vector<Table> tables(static_cast<size_t>(f.num_games));
  std::vector<std::pair<agents::LlmAgent, agents::LlmAgent>> players;
  for (size_t i = 0; i < tables.size(); ++i) {
    auto game = games::make_game(f.game);
    if (!game) return fail(game.error().message);
    tables[i].game = std::move(*game);
    players.emplace_back(make_agent(f.game == "chess" ? "white" : "cho", f.seed + 2 * i),
                         make_agent(f.game == "chess" ? "black" : "han", f.seed + 2 * i + 1));
  }

  const auto start = std::chrono::steady_clock::now();
  for (bool busy = true; busy;) {
    busy = false;
    for (size_t i = 0; i < tables.size(); ++i) {
      Table& t = tables[i];
      if (!t.result.empty()) continue;
      busy = true;
      const auto& agent = t.game->side_to_move() == games::Side::First ? players[i].first : players[i].second;
      if (!t.pending) {
        auto handle = agent.request_move(*t.game);
        if (!handle) return fail(handle.error().message);
        t.pending = std::move(*handle);
      } else if (t.pending->finished()) {
        settle(t, static_cast<int>(i), agent, f.max_plies);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  fmt::print("\n");
  for (size_t i = 0; i < tables.size(); ++i) {
    std::string line;
    for (size_t m = 0; m < tables[i].moves.size(); ++m)
      line += (m % 2 == 0 ? fmt::format("{}. ", m / 2 + 1) : std::string()) + tables[i].moves[m] + " ";
    fmt::print("game {}: {}\n  {}\n", i + 1, tables[i].result, line);
  }
  const engine::MetricsSnapshot m = (*engine)->metrics();
  fmt::print(
      "\nengine: {} requests in {:.1f} s ({:.1f} req/s), {} forward passes, mean batch {:.1f} sequences,\n"
      "        prefix cache hit rate {:.0f}% of prompt tokens, TTFT p50 {:.0f} ms, KV blocks peak {}/{}\n",
      m.num_requests_finished, seconds, m.num_requests_finished / seconds, m.num_steps, m.batch_size.mean(),
      100 * m.prefix_hit_rate(), 1e3 * m.time_to_first_token.quantile(0.5), m.kv_blocks_peak,
      m.kv_blocks_total);
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<DemoFlags>();
  DemoFlags& f = *flags;
  auto* cmd =
      root.add_subcommand("demo", "LLM self-play through the batching engine (until tournaments exist)");
  cmd->add_option("--model", f.model, "GGUF model file")->required();
  cmd->add_option("--game", f.game, "chess or a janggi variant")
      ->check(CLI::IsMember(games::game_variants()));
  cmd->add_option("--games", f.num_games, "Games played at once")->check(CLI::Range(1, 256));
  cmd->add_option("--max-plies", f.max_plies, "Stop each game after this many plies")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--temp", f.temperature, "Sampling temperature (0 = greedy)")->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--seed", f.seed, "Sampling seed");
  cmd->add_option("--threads", f.threads, "Compute threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  cmd->callback([flags, &action] { action = [flags] { return run_demo(*flags); }; });
}

}  // namespace arena::cli
