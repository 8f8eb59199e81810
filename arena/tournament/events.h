// The tournament's events as types: one struct per event type of docs/events.md, each with one
// to_json / from_json. The runner builds these structs; the event log writes them as JSON lines,
// the game records (game_record.h) and the observers (the board server's hub) take them, and a
// resumed run reads the log back into them with the same from_json. The JSON keeps the schema of
// docs/events.md field for field (names, types, which fields are null or absent).
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "agents/agent.h"
#include "arena/config/config.h"

namespace arena::tournament {

// [first, second] milliseconds left, when the tournament has clocks.
using ClockMs = std::optional<std::array<int64_t, 2>>;

struct TournamentStart {
  std::string config_hash, arena_version;
  uint64_t seed = 0;
  std::vector<std::string> variants, agents, models;
  int64_t num_games = 0;
  bool resumed = false;
  int32_t games_done = 0;
};

struct GameStart {
  std::string game;  // "g0001"
  int32_t index = 0, pair = -1;
  std::string variant, first, second, start_fen, opening;
  ClockMs clock_ms;
};

struct MoveEvent {
  std::string game;
  int32_t ply = 0;  // 1-based, after the move
  bool first_side = true;
  std::string agent, uci, human, fen, raw, reasoning;
  double latency_s = 0, ttft_s = 0, queue_s = 0;
  int32_t prompt_tokens = 0, cached_tokens = 0, completion_tokens = 0, retries = 0;
  ClockMs clock_ms;                                  // after the move, increment added
  std::optional<config::DeadlinePolicy> substitute;  // the policy that chose this move
  std::optional<agents::MoveFailure> failure;        // why the agent's own answer was not played
  std::optional<int32_t> score_cp;                   // the agent's own evaluation
  // Whether the tournament has an adjudication referee (then `referee_cp` and `referee_best` are
  // written, maybe null).
  bool has_referee = false;
  std::optional<int32_t> referee_cp;
  std::optional<std::string> referee_best;  // the referee's move for the side to move now (UCI)
  std::string replica;  // the fleet replica that answered (an LLM agent on `endpoints:`), or ""
};

struct GameEnd {
  std::string game;
  int32_t index = 0;
  std::string result = "*", reason, termination;
  int32_t plies = 0;
  // The agent whose failure decided the game (both written, or neither).
  std::string failure_agent;
  std::optional<agents::FailureKind> failure_kind;
};

// An agent's move quality by the referee's scores (move_quality.h).
struct StandingsQuality {
  std::optional<double> acpl, accuracy;  // null when none of its moves was scored
  int32_t inaccuracies = 0, mistakes = 0, blunders = 0;
};

struct StandingsEntry {
  std::string agent;
  int32_t games = 0, wins = 0, draws = 0, losses = 0;
  double points = 0;
  std::optional<double> elo, elo_error, los;  // null when undefined (e.g. a 100% score)
  double draw_ratio = 0;
  // The pool rating over every game (pool_ratings.h), when the standings have one; its error
  // (null without simulations) and bound: ">" (won every game: at least), "<" (at most) or "".
  std::optional<double> rating, rating_error;
  std::string rating_bound;
  std::optional<StandingsQuality> quality;  // with a referee only
};

struct StandingsEvent {
  std::vector<StandingsEntry> rows;
};

// One engine's metrics since the previous sample (see metrics_sampler.h).
struct MetricsEvent {
  std::string model;
  int32_t queue = 0, running = 0;
  double batch = 0, ttft_p50 = 0, ttft_p99 = 0, prompt_tps = 0, gen_tps = 0;
  int32_t kv_used = 0, kv_total = 0;
  int32_t kv_window_used = 0, kv_window_total = 0;  // the sliding layers' own blocks; 0: none
  double prefix_hit_rate = 0;
  int64_t preemptions = 0;
  std::optional<int64_t> deadline_misses;  // the runner's, cumulative; null without a runner
  int64_t engine_deadline_misses = 0;      // the engine's own count
  std::string source;  // "server" for the board server's own samples, "replica" for a fleet's replica
  // A replica's (replica_sampler.h): requests sent and errors since the last sample, and whether
  // it is in its fleet now; its in-flight count is `running`, its mean TTFT `ttft_p50`.
  int64_t requests = 0, errors = 0;
  bool healthy = true;
};

struct TournamentEnd {
  bool interrupted = false;
  int32_t games_done = 0;
  bool sprt_stopped = false;
  int64_t deadline_misses = 0, ticks = 0;
};

using EventBody =
    std::variant<TournamentStart, GameStart, MoveEvent, GameEnd, StandingsEvent, MetricsEvent, TournamentEnd>;

// One event: what every event has (seq only for those of the log) and its body.
struct Event {
  std::optional<int64_t> seq;
  double time = 0;  // Unix seconds
  EventBody body;
};

// The event's `type` ("move", ...).
const char* type_name(const EventBody& body);

void to_json(nlohmann::json& j, const TournamentStart& e);
void to_json(nlohmann::json& j, const GameStart& e);
void to_json(nlohmann::json& j, const MoveEvent& e);
void to_json(nlohmann::json& j, const GameEnd& e);
void to_json(nlohmann::json& j, const StandingsEntry& e);
void to_json(nlohmann::json& j, const StandingsEvent& e);
void to_json(nlohmann::json& j, const MetricsEvent& e);
void to_json(nlohmann::json& j, const TournamentEnd& e);
// The whole event: type, time, seq (when set) and the body's fields.
void to_json(nlohmann::json& j, const Event& e);

// Readers are lenient as docs/events.md asks: unknown fields are ignored, a missing or null field
// keeps its default. from_json throws nlohmann::json::exception only for a field of the wrong type.
void from_json(const nlohmann::json& j, TournamentStart& e);
void from_json(const nlohmann::json& j, GameStart& e);
void from_json(const nlohmann::json& j, MoveEvent& e);
void from_json(const nlohmann::json& j, GameEnd& e);
void from_json(const nlohmann::json& j, StandingsEntry& e);
void from_json(const nlohmann::json& j, StandingsEvent& e);
void from_json(const nlohmann::json& j, MetricsEvent& e);
void from_json(const nlohmann::json& j, TournamentEnd& e);

// The event a JSON object describes; an error for a non-object, an unknown `type` or a field of
// the wrong type.
std::expected<Event, std::string> parse_event(const nlohmann::json& j);

}  // namespace arena::tournament
