// The tournament runner: schedules the pairings of a TournamentConfig, plays `concurrency` games
// at once in a tick loop (every tick each game whose side to move is idle asks its agent, so the
// LLM requests of one tick reach their engine together), applies clocks, deadline policies and
// adjudication, and writes the results (events.jsonl, games.pgn, standings, metrics.csv) into
// RunOptions::output_dir. A run interrupted by RunOptions::stop (or a crash) resumes from its
// event log with the same games, game for game.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "arena/config/config.h"
#include "arena/models/engine_source.h"
#include "arena/tournament/observer.h"
#include "engine/api.h"

namespace arena::tournament {

// One player of the tournament and how to make its agents.
struct Participant {
  std::string name;
  std::vector<std::string> variants;  // empty = any the agent supports
  // A fresh agent instance (one per seat in flight; reused across games via new_game/end_game).
  std::function<std::expected<std::unique_ptr<agents::Agent>, agents::AgentError>()> make;
};

// An engine whose metrics the runner samples (per tick into metrics.csv, and to observers).
using models::EngineSource;

struct RunOptions {
  std::filesystem::path output_dir;
  bool resume = false;                      // continue from output_dir/events.jsonl
  std::string config_hash;                  // of the resolved config (written in tournament_start)
  bool quiet = false;                       // no status line / progress
  const std::atomic<bool>* stop = nullptr;  // set by SIGINT/SIGTERM: stop cleanly
  TournamentObserver* observer = nullptr;   // the board server's hub, or null
  std::string arena_version;                // written in tournament_start ("" = the build's)
  // Wall-clock source of event timestamps (Unix seconds); null = the system clock. Tests fix it.
  std::function<double()> now;
  // Environment variables for the agents the runner makes itself (the referee: PATH, to find its
  // engine); null = none is set. The library never reads the environment itself.
  std::function<std::optional<std::string>(const std::string& name)> get_env;
  // The pool ratings of the standings (the config's `ratings:`); null = none.
  std::optional<config::RatingsConfig> ratings;
};

struct RunSummary {
  int32_t games_total = 0, games_done = 0;
  bool interrupted = false;
  bool sprt_stopped = false;  // the SPRT decided before every game was played
};

// Runs (or resumes) the tournament; an error for what makes it impossible to run.
std::expected<RunSummary, std::string> run_tournament(const config::TournamentConfig& tournament,
                                                      std::vector<Participant> participants,
                                                      std::vector<EngineSource> engines,
                                                      const RunOptions& options);

}  // namespace arena::tournament
