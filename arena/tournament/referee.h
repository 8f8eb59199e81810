// The adjudication referee: a UCI engine (Stockfish, Fairy-Stockfish) that scores the position
// after each move for the draw and resign rules, off the tick loop. One Referee serves every game
// in flight from a bounded queue with a few worker threads, each running its own engine through
// the uci agent (agents::make_agent: handshake, UCI_Variant, timeouts, restarts after a crash).
// Each position is scored from a fresh `ucinewgame`, so a score depends on the position and the
// search limit alone, not on which worker took it or what it scored before: a resumed run scores
// its replayed games exactly as the first run did (with a depth or nodes limit).
//
// A score belongs to one (game, ply): the runner ignores any it no longer waits for. A job that
// fails (crash, hang past its timeout, a variant the engine does not play) comes back with an
// error instead of a score; an engine that cannot be started at all makes the referee dead, and
// every job after that fails at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_config.h"

namespace arena::tournament {

// A position to score: the game after `ply` plies (its start and its moves up to there).
struct RefereeJob {
  std::string game;
  int32_t ply = 0;
  std::string variant;
  std::string start_fen;
  std::vector<std::string> moves;
  std::shared_ptr<const games::Game> position;
};

// The referee's answer for one job: the score from the side to move's view (mates as
// +-(30000 - distance)) and the move it would play there, or an error saying why there is none.
struct RefereeScore {
  std::string game;
  int32_t ply = 0;
  std::optional<int32_t> cp;
  std::string error;  // "" when the engine answered
  std::string best;   // UCI; "" when the engine named none
};

// A mate in `mate` moves (positive: the side to move mates) as a centipawn score.
int32_t mate_score_cp(int32_t mate);

class Referee {
 public:
  // Makes the first engine now (the caller's thread; an error when it cannot start) and up to
  // `workers` - 1 more lazily on their own threads. `notify` is called (any thread, quickly)
  // whenever a score is ready.
  // `get_env` reads the environment for the engine (PATH); null = none is set.
  static std::expected<std::unique_ptr<Referee>, std::string> start(
      const agents::AgentConfig& config, int32_t workers, std::function<void()> notify,
      std::function<std::optional<std::string>(const std::string&)> get_env = nullptr);
  ~Referee();
  Referee(const Referee&) = delete;
  Referee& operator=(const Referee&) = delete;

  // Whether the engine plays `variant`.
  bool supports(const std::string& variant) const;
  // Queues a job; false when the queue is full or the referee is dead (the caller then adjudicates
  // by the players' scores).
  bool submit(RefereeJob job);
  // The scores ready since the last call.
  std::vector<RefereeScore> take_scores();
  // How long the runner waits for one score before it gives up on the referee for that game.
  std::chrono::milliseconds job_timeout() const { return job_timeout_; }
  // Why the referee stopped working ("" while it works).
  std::string dead_reason() const;

 private:
  Referee(agents::AgentConfig config, int32_t workers, std::function<void()> notify,
          std::function<std::optional<std::string>(const std::string&)> get_env);
  // Worker thread `index`: takes jobs until the referee closes.
  void work(size_t index, std::unique_ptr<agents::Agent> agent);
  // Worker thread `index`: one job on `agent` (reset when it hung past its own timeouts).
  RefereeScore score(size_t index, std::unique_ptr<agents::Agent>& agent, const RefereeJob& job);

  agents::AgentConfig config_;
  agents::AgentEnvironment env_;
  std::function<void()> notify_;
  std::chrono::milliseconds search_budget_{0}, job_timeout_{0};
  size_t capacity_ = 0;
  std::vector<std::string> variants_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<RefereeJob> queue_;
  std::vector<RefereeScore> done_;
  std::string dead_;
  bool closing_ = false;
  std::vector<std::shared_ptr<agents::MoveTicket>> in_flight_;  // per worker, cancelled on close
  std::vector<std::thread> threads_;
};

}  // namespace arena::tournament
