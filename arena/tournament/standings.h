// Standings from the finished games: per agent games, W/D/L, points, Elo +- 95% error and nElo
// (pentanomial when the agent has complete colour-swapped pairs, as fastchess reports them,
// trinomial otherwise), LOS, draw ratio and the pentanomial counts; the agents' own numbers
// (illegal-answer rate, retries, mean latency, tokens per move, prefix hit rate); with a referee,
// the move quality (move_quality.h); and for a two-agent match the SPRT state. Printed as
// fastchess lays it out, and as JSON and Markdown. Beside these per-agent statistics, the ratings
// of every agent at once over every game (pool_ratings.h), when asked for.
#pragma once

#include <climits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "arena/config/config.h"
#include "arena/tournament/events.h"
#include "arena/tournament/game_record.h"
#include "arena/tournament/move_quality.h"
#include "arena/tournament/pool_ratings.h"
#include "arena/tournament/ratings.h"

namespace arena::tournament {

struct StandingRow {
  std::string agent;
  ScoreStats stats;
  EloEstimate elo;  // elo_estimate(stats)
  // The agent's own numbers over its moves.
  int32_t moves = 0;            // moves it was asked for (answers accepted, substituted or failed)
  int32_t illegal_answers = 0;  // rejected answers: retries plus illegal / unparseable failures
  int32_t retries = 0;
  int32_t failures = 0;  // moves where its answer was not played (any failure kind)
  double mean_latency_s = 0;
  double tokens_per_move = 0;  // completion tokens
  double prefix_hit_rate = 0;  // cached over prompt tokens
  int64_t prompt_tokens = 0, cached_tokens = 0, completion_tokens = 0;
  // Rejected answers over answers given (moves plus retries), 0..1.
  double illegal_rate() const {
    const int32_t answers = moves + retries;
    return answers ? double(illegal_answers) / answers : 0.0;
  }
};

struct SprtState {
  std::string first, second;  // the test is of `first` against `second`
  config::SprtConfig config;
  double llr = 0;
  SprtBounds bounds;
  SprtDecision decision = SprtDecision::Continue;
  bool pentanomial = false;
};

struct Standings {
  int32_t games_done = 0, games_total = 0;
  std::vector<StandingRow> rows;  // best first (by Elo, then points)
  std::optional<SprtState> sprt;
  std::optional<PoolRatings> pool;  // the ratings over every game, when asked for
  // Per agent, how good its moves were by the referee's scores; null without a referee.
  std::optional<std::map<std::string, AgentQuality>> quality;
};

// Every finished game of `book` for the pool ratings.
std::vector<PoolGame> pool_games(const GameBook& book);
// The pool-rating options of a config's `ratings:` section; at most `max_simulations` of them (the
// live standings use fewer than the final ones).
PoolRatingOptions pool_options(const config::RatingsConfig& ratings, uint64_t seed,
                               int32_t max_simulations = INT32_MAX);

// Standings of `agents` (in participant order; the first two are the SPRT pair) over the
// finished games of `book`; with `pool`, also the pool ratings.
Standings compute_standings(const std::vector<std::string>& agents, const GameBook& book, int32_t games_total,
                            const std::optional<config::SprtConfig>& sprt,
                            const std::optional<PoolRatingOptions>& pool = std::nullopt);

// The terminal table (fastchess layout: Rank Name Elo +/- nElo +/- Games Score Draw Ptnml(0-2)),
// then the agents' numbers, then the SPRT line.
std::string standings_text(const Standings& standings);
// standings.json: every row's numbers, and the SPRT state.
nlohmann::json standings_json(const Standings& standings);
// standings.md: the same tables in Markdown.
std::string standings_markdown(const Standings& standings);
// The `standings` event of these standings.
StandingsEvent standings_event(const Standings& standings);

}  // namespace arena::tournament
