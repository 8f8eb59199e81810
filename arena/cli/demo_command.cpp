// `arena demo`: self-play between LLM agents, without a tournament. Several games run at once;
// whenever a game's side to move is idle its agent (agents/llm) asks the engine for a move, so the
// engine batches every game's request into shared forward passes and serves the common system
// prompt (and, with --history conversation, each agent's game so far) from its prefix cache.
// Constrained mode (the default) keeps answers legal, so even a random-weight model plays legal,
// aimless games.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "agents/llm/llm_agent.h"
#include "arena/cli/command.h"
#include "engine/api.h"
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
  agents::OutputMode mode = agents::OutputMode::Constrained;
  agents::HistoryMode history = agents::HistoryMode::None;
  int reasoning_tokens = 32;
};

// One game in flight: the position, its two agents, and the pending move.
struct Table {
  std::unique_ptr<games::Game> game;
  std::unique_ptr<agents::Agent> first, second;
  std::shared_ptr<agents::MoveTicket> pending;
  std::string result;  // set when the game is over (outcome, failure or ply limit)
};

// Wakes the loop when any ticket resolves (tickets call on_ready on the engine thread).
struct Wakeup {
  std::mutex mutex;
  std::condition_variable cv;
  int64_t count = 0;
  void notify() {
    {
      std::lock_guard lock(mutex);
      ++count;
    }
    cv.notify_one();
  }
};

int demo_fail(const std::string& message) {
  fmt::print(stderr, "arena demo: error: {}\n", message);
  return 1;
}

// Collects a resolved move: plays it or records why the game ends.
void settle(Table& t, int index, const agents::Agent& agent, int max_plies) {
  const agents::MoveResult r = t.pending->wait();
  t.pending.reset();
  if (!r.ok()) {
    t.result = r.resigned ? fmt::format("{} resigned", agent.name())
                          : fmt::format("forfeit by {}: {}", agent.name(),
                                        r.failure ? r.failure->message : "no move");
    return;
  }
  const std::string human = t.game->to_human(r.move).value_or(r.move);
  (void)t.game->apply(r.move);
  fmt::print(
      "game {:>2}  ply {:>3}  {:<6} {:<8} ttft {:6.1f} ms  cached {:>4}/{:<4} prompt tokens{}\n", index + 1,
      t.game->ply(), agent.name(), human, r.ttft_seconds * 1e3, r.num_cached_tokens, r.num_prompt_tokens,
      r.reasoning.empty() ? "" : fmt::format("  ({} tokens, thinking included)", r.num_completion_tokens));
  if (const auto outcome = t.game->outcome(); outcome.finished())
    t.result = outcome.reason;
  else if (t.game->ply() >= max_plies)
    t.result = fmt::format("unfinished after {} plies", max_plies);
}

// An LLM agent of the demo's model ("demo" in `env`) with the flags' settings and its own seed.
std::expected<std::unique_ptr<agents::Agent>, std::string> make_agent(const DemoFlags& f,
                                                                      const agents::AgentEnvironment& env,
                                                                      const std::string& name,
                                                                      uint64_t seed) {
  agents::LlmAgentConfig c;
  c.model = "demo";
  c.sampling.temperature = f.temperature;
  c.sampling.seed = seed;
  c.mode = f.mode;
  c.history = f.history;
  c.reasoning_tokens = f.reasoning_tokens;
  agents::AgentConfig a;
  a.name = name;
  a.params = c;
  auto agent = agents::make_llm_agent(a, env);
  if (!agent) return std::unexpected(agent.error().message);
  return std::move(*agent);
}

// The games at their start, each with its own pair of agents (same prompts, own sampling seeds,
// so games differ), told that the game begins.
std::expected<std::vector<Table>, std::string> seat_tables(const DemoFlags& f,
                                                           const agents::AgentEnvironment& env) {
  const bool chess = !games::is_janggi(f.game);
  std::vector<Table> tables(static_cast<size_t>(f.num_games));
  for (size_t i = 0; i < tables.size(); ++i) {
    auto game = games::make_game(f.game);
    if (!game) return std::unexpected(game.error().message);
    tables[i].game = std::move(*game);
    auto first = make_agent(f, env, chess ? "white" : "cho", f.seed + 2 * i);
    auto second = make_agent(f, env, chess ? "black" : "han", f.seed + 2 * i + 1);
    if (!first) return std::unexpected(first.error());
    if (!second) return std::unexpected(second.error());
    tables[i].first = std::move(*first);
    tables[i].second = std::move(*second);
    const std::string fen = tables[i].game->fen(), id = fmt::format("demo-{}", i + 1);
    (void)tables[i].first->new_game({id, f.game, fen, games::Side::First, tables[i].second->name()});
    (void)tables[i].second->new_game({id, f.game, fen, games::Side::Second, tables[i].first->name()});
  }
  return tables;
}

// Plays every game to its end: asks the side to move of each idle game, settles each answer as it
// resolves, and sleeps (at most a second) while every game waits for the engine.
void play_tables(std::vector<Table>& tables, int max_plies) {
  Wakeup wakeup;
  for (bool busy = true; busy;) {
    busy = false;
    int64_t seen = 0;
    {
      std::lock_guard lock(wakeup.mutex);
      seen = wakeup.count;
    }
    for (size_t i = 0; i < tables.size(); ++i) {
      Table& t = tables[i];
      if (!t.result.empty()) continue;
      busy = true;
      const bool first = t.game->side_to_move() == games::Side::First;
      agents::Agent& agent = first ? *t.first : *t.second;
      if (!t.pending) {
        agents::MoveRequest request;
        request.game = std::shared_ptr<const games::Game>(t.game->clone());
        request.start_fen = t.game->start_fen();
        request.moves = t.game->moves();
        request.opponent = (first ? *t.second : *t.first).name();
        request.deadline = agents::Clock::now() + std::chrono::minutes(10);
        request.on_ready = [&wakeup] { wakeup.notify(); };
        t.pending = agent.start_move(request);
      } else if (t.pending->ready()) {
        settle(t, static_cast<int>(i), agent, max_plies);
        if (!t.result.empty()) {
          t.first->end_game({"*", t.result});
          t.second->end_game({"*", t.result});
        }
      }
    }
    bool progressed = false;
    for (const auto& t : tables) progressed |= t.result.empty() && (!t.pending || t.pending->ready());
    if (busy && !progressed) {
      std::unique_lock lock(wakeup.mutex);
      wakeup.cv.wait_for(lock, std::chrono::seconds(1), [&] { return wakeup.count != seen; });
    }
  }
}

// Each game's result and moves, then the engine's figures over the `seconds` of play.
void print_summary(const std::vector<Table>& tables, const engine::MetricsSnapshot& m, double seconds) {
  fmt::print("\n");
  for (size_t i = 0; i < tables.size(); ++i) {
    std::string line;
    const auto moves = tables[i].game->moves_human();
    for (size_t n = 0; n < moves.size(); ++n)
      line += (n % 2 == 0 ? fmt::format("{}. ", n / 2 + 1) : std::string()) + moves[n] + " ";
    fmt::print("game {}: {}\n  {}\n", i + 1, tables[i].result, line);
  }
  fmt::print(
      "\nengine: {} requests in {:.1f} s ({:.1f} req/s), {} forward passes, mean batch {:.1f} sequences,\n"
      "        prefix cache hit rate {:.1f}% of {} prompt tokens, TTFT p50 {:.0f} ms, KV blocks peak {}/{}\n",
      m.num_requests_finished, seconds, m.num_requests_finished / seconds, m.num_steps, m.batch_size.mean(),
      100 * m.prefix_hit_rate(), m.prefix_cache_queries, 1e3 * m.time_to_first_token.quantile(0.5),
      m.kv_blocks_peak, m.kv_blocks_total);
}

int run_demo(const DemoFlags& f) {
  fmt::print(
      "arena demo: LLM self-play through the batching engine ({} {} games at once, model {}, mode {}, "
      "history {}).\n\n",
      f.num_games, f.game, f.model, agents::to_string(f.mode), agents::to_string(f.history));
  auto model = engine::LoadedModel::open(f.model, engine::ModelOptions{f.threads, ""});
  if (!model) return demo_fail(model.error().message);
  engine::EngineConfig config;
  config.cache.kv_cache_bytes = size_t{256} << 20;
  config.logger = [](std::string_view line) { spdlog::info("engine: {}", line); };
  auto engine = (*model)->create_engine(config);
  if (!engine) return demo_fail(engine.error().message);
  const agents::ModelBinding binding{"demo", model->get(), engine->get()};
  agents::AgentEnvironment env;
  env.find_model = [&](const std::string& name) { return name == binding.name ? &binding : nullptr; };

  auto tables = seat_tables(f, env);
  if (!tables) return demo_fail(tables.error());
  const auto start = std::chrono::steady_clock::now();
  play_tables(*tables, f.max_plies);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  print_summary(*tables, (*engine)->metrics(), seconds);
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<DemoFlags>();
  DemoFlags& f = *flags;
  auto* cmd = root.add_subcommand(
      "demo", "LLM self-play through the batching engine (no tournament: see `arena run`)");
  cmd->add_option("--model", f.model, "GGUF model file")->required();
  cmd->add_option("--game", f.game, "chess or a janggi variant")
      ->check(CLI::IsMember(games::game_variants()));
  cmd->add_option("--games", f.num_games, "Games played at once")->check(CLI::Range(1, 256));
  cmd->add_option("--max-plies", f.max_plies, "Stop each game after this many plies")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--temp", f.temperature, "Sampling temperature (0 = greedy)")->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--seed", f.seed, "Sampling seed");
  cmd->add_option("--threads", f.threads, "Compute threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  const std::map<std::string, agents::OutputMode> modes{{"constrained", agents::OutputMode::Constrained},
                                                        {"free", agents::OutputMode::Free},
                                                        {"reason", agents::OutputMode::Reason}};
  cmd->add_option("--mode", f.mode, "Output mode: constrained, free or reason")
      ->transform(CLI::CheckedTransformer(modes));
  const std::map<std::string, agents::HistoryMode> histories{
      {"none", agents::HistoryMode::None}, {"conversation", agents::HistoryMode::Conversation}};
  cmd->add_option("--history", f.history,
                  "none (a fresh prompt each move) or conversation (one chat per game)")
      ->transform(CLI::CheckedTransformer(histories));
  cmd->add_option("--reasoning-tokens", f.reasoning_tokens, "Reason mode: thinking tokens at most")
      ->check(CLI::Range(1, 4096));
  cmd->callback([flags, &action] { action = [flags] { return run_demo(*flags); }; });
}

}  // namespace arena::cli
