// Tournament events to and from JSON (see events.h and docs/events.md).
#include "arena/tournament/events.h"

#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace arena::tournament {
namespace {

using nlohmann::json;

// v as T; an integer field must hold a number T can represent (a log's 2e60 or NaN is an
// error, not a conversion with undefined behaviour).
template <typename T>
T get(const json& v, const char* key) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const bool fits = v.is_number_unsigned()  ? std::in_range<T>(v.get<uint64_t>())
                      : v.is_number_integer() ? std::in_range<T>(v.get<int64_t>())
                      : v.is_number_float()
                          ? v.get<double>() >= double(std::numeric_limits<T>::min()) &&
                                v.get<double>() < double(std::numeric_limits<T>::max()) + 1.0
                          : true;  // not a number: get<T> says so
    if (!fits) throw std::out_of_range(std::string("field '") + key + "': " + v.dump() + " is out of range");
  }
  return v.get<T>();
}

// Reads j[key] into `out` unless the field is absent or null.
template <typename T>
void read(const json& j, const char* key, T& out) {
  const auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = get<T>(*it, key);
}

template <typename T>
void read(const json& j, const char* key, std::optional<T>& out) {
  const auto it = j.find(key);
  out = it != j.end() && !it->is_null() ? std::optional<T>(get<T>(*it, key)) : std::nullopt;
}

ClockMs read_clock(const json& j) {
  const auto it = j.find("clock_ms");
  if (it == j.end() || !it->is_array() || it->size() != 2) return std::nullopt;
  return std::array<int64_t, 2>{get<int64_t>((*it)[0], "clock_ms"), get<int64_t>((*it)[1], "clock_ms")};
}

template <typename T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

agents::FailureKind failure_kind(const std::string& name) {
  const auto kind = agents::parse_failure_kind(name);
  if (!kind) throw std::invalid_argument("unknown failure kind '" + name + "'");
  return *kind;
}

}  // namespace

const char* type_name(const EventBody& body) {
  static constexpr const char* kNames[] = {"tournament_start", "game_start", "move",          "game_end",
                                           "standings",        "metrics",    "tournament_end"};
  return kNames[body.index()];
}

void to_json(json& j, const TournamentStart& e) {
  j = {{"config_hash", e.config_hash},
       {"arena_version", e.arena_version},
       {"seed", e.seed},
       {"variants", e.variants},
       {"agents", e.agents},
       {"models", e.models},
       {"num_games", e.num_games},
       {"resumed", e.resumed},
       {"games_done", e.games_done}};
}

void from_json(const json& j, TournamentStart& e) {
  read(j, "config_hash", e.config_hash);
  read(j, "arena_version", e.arena_version);
  read(j, "seed", e.seed);
  read(j, "variants", e.variants);
  read(j, "agents", e.agents);
  read(j, "models", e.models);
  read(j, "num_games", e.num_games);
  read(j, "resumed", e.resumed);
  read(j, "games_done", e.games_done);
}

void to_json(json& j, const GameStart& e) {
  j = {{"game", e.game},           {"index", e.index},     {"pair", e.pair},
       {"variant", e.variant},     {"first", e.first},     {"second", e.second},
       {"start_fen", e.start_fen}, {"opening", e.opening}, {"clock_ms", or_null(e.clock_ms)}};
}

void from_json(const json& j, GameStart& e) {
  read(j, "game", e.game);
  read(j, "index", e.index);
  read(j, "pair", e.pair);
  read(j, "variant", e.variant);
  read(j, "first", e.first);
  read(j, "second", e.second);
  read(j, "start_fen", e.start_fen);
  read(j, "opening", e.opening);
  e.clock_ms = read_clock(j);
}

void to_json(json& j, const MoveEvent& e) {
  json failure = nullptr;
  if (e.failure) failure = {{"kind", agents::to_string(e.failure->kind)}, {"message", e.failure->message}};
  j = {{"game", e.game},
       {"ply", e.ply},
       {"side", e.first_side ? "first" : "second"},
       {"agent", e.agent},
       {"uci", e.uci},
       {"human", e.human},
       {"fen", e.fen},
       {"raw", e.raw},
       {"reasoning", e.reasoning},
       {"latency_s", e.latency_s},
       {"ttft_s", e.ttft_s},
       {"queue_s", e.queue_s},
       {"prompt_tokens", e.prompt_tokens},
       {"cached_tokens", e.cached_tokens},
       {"completion_tokens", e.completion_tokens},
       {"retries", e.retries},
       {"clock_ms", or_null(e.clock_ms)},
       {"substitute", e.substitute ? json(config::to_string(*e.substitute)) : json(nullptr)},
       {"failure", std::move(failure)},
       {"score_cp", or_null(e.score_cp)}};
  if (e.has_referee) {
    j["referee_cp"] = or_null(e.referee_cp);
    j["referee_best"] = or_null(e.referee_best);
  }
  if (!e.replica.empty()) j["replica"] = e.replica;  // only an agent on a fleet has one
}

void from_json(const json& j, MoveEvent& e) {
  read(j, "game", e.game);
  read(j, "ply", e.ply);
  std::string side = "first";
  read(j, "side", side);
  e.first_side = side == "first";
  for (auto [key, out] : {std::pair{"agent", &e.agent},
                          {"uci", &e.uci},
                          {"human", &e.human},
                          {"fen", &e.fen},
                          {"raw", &e.raw},
                          {"reasoning", &e.reasoning},
                          {"replica", &e.replica}})
    read(j, key, *out);
  read(j, "latency_s", e.latency_s);
  read(j, "ttft_s", e.ttft_s);
  read(j, "queue_s", e.queue_s);
  read(j, "prompt_tokens", e.prompt_tokens);
  read(j, "cached_tokens", e.cached_tokens);
  read(j, "completion_tokens", e.completion_tokens);
  read(j, "retries", e.retries);
  e.clock_ms = read_clock(j);
  std::optional<std::string> substitute;
  read(j, "substitute", substitute);
  e.substitute.reset();
  if (substitute) {
    e.substitute = config::parse_deadline_policy(*substitute);
    if (!e.substitute) throw std::invalid_argument("unknown substitute '" + *substitute + "'");
  }
  e.failure.reset();
  if (const auto f = j.find("failure"); f != j.end() && f->is_object()) {
    std::string kind, message;
    read(*f, "kind", kind);
    read(*f, "message", message);
    e.failure = agents::MoveFailure{failure_kind(kind), message};
  }
  read(j, "score_cp", e.score_cp);
  e.has_referee = j.contains("referee_cp");
  read(j, "referee_cp", e.referee_cp);
  read(j, "referee_best", e.referee_best);  // absent in logs written before it existed
}

void to_json(json& j, const GameEnd& e) {
  j = {{"game", e.game},     {"index", e.index}, {"result", e.result},
       {"reason", e.reason}, {"plies", e.plies}, {"termination", e.termination}};
  if (!e.failure_agent.empty()) {
    j["failure_agent"] = e.failure_agent;
    j["failure_kind"] = e.failure_kind ? agents::to_string(*e.failure_kind) : "";
  }
}

void from_json(const json& j, GameEnd& e) {
  read(j, "game", e.game);
  read(j, "index", e.index);
  read(j, "result", e.result);
  read(j, "reason", e.reason);
  read(j, "termination", e.termination);
  read(j, "plies", e.plies);
  read(j, "failure_agent", e.failure_agent);
  std::optional<std::string> kind;
  read(j, "failure_kind", kind);
  e.failure_kind = kind && !kind->empty() ? std::optional(failure_kind(*kind)) : std::nullopt;
}

void to_json(json& j, const StandingsEntry& e) {
  j = {{"agent", e.agent},      {"games", e.games},
       {"wins", e.wins},        {"draws", e.draws},
       {"losses", e.losses},    {"points", e.points},
       {"elo", or_null(e.elo)}, {"elo_error", or_null(e.elo_error)},
       {"los", or_null(e.los)}, {"draw_ratio", e.draw_ratio}};
  if (e.rating) {
    j["rating"] = *e.rating;
    j["rating_error"] = or_null(e.rating_error);
    j["rating_bound"] = e.rating_bound;
  }
  if (e.quality) {
    j["acpl"] = or_null(e.quality->acpl);
    j["accuracy"] = or_null(e.quality->accuracy);
    j["inaccuracies"] = e.quality->inaccuracies;
    j["mistakes"] = e.quality->mistakes;
    j["blunders"] = e.quality->blunders;
  }
}

void from_json(const json& j, StandingsEntry& e) {
  read(j, "agent", e.agent);
  read(j, "games", e.games);
  read(j, "wins", e.wins);
  read(j, "draws", e.draws);
  read(j, "losses", e.losses);
  read(j, "points", e.points);
  read(j, "elo", e.elo);
  read(j, "elo_error", e.elo_error);
  read(j, "los", e.los);
  read(j, "draw_ratio", e.draw_ratio);
  read(j, "rating", e.rating);
  read(j, "rating_error", e.rating_error);
  read(j, "rating_bound", e.rating_bound);
  e.quality.reset();
  if (j.contains("blunders")) {
    StandingsQuality& q = e.quality.emplace();
    read(j, "acpl", q.acpl);
    read(j, "accuracy", q.accuracy);
    read(j, "inaccuracies", q.inaccuracies);
    read(j, "mistakes", q.mistakes);
    read(j, "blunders", q.blunders);
  }
}

void to_json(json& j, const StandingsEvent& e) {
  j = {{"rows", e.rows}};
}

void from_json(const json& j, StandingsEvent& e) {
  read(j, "rows", e.rows);
}

void to_json(json& j, const MetricsEvent& e) {
  j = {{"model", e.model},
       {"queue", e.queue},
       {"running", e.running},
       {"batch", e.batch},
       {"ttft_p50", e.ttft_p50},
       {"ttft_p99", e.ttft_p99},
       {"prompt_tps", e.prompt_tps},
       {"gen_tps", e.gen_tps},
       {"kv_used", e.kv_used},
       {"kv_total", e.kv_total},
       {"prefix_hit_rate", e.prefix_hit_rate},
       {"preemptions", e.preemptions},
       {"deadline_misses", or_null(e.deadline_misses)},
       {"engine_deadline_misses", e.engine_deadline_misses}};
  if (e.kv_window_total > 0) {
    j["kv_window_used"] = e.kv_window_used;
    j["kv_window_total"] = e.kv_window_total;
  }
  if (!e.source.empty()) j["source"] = e.source;
  if (e.source == "replica") {
    j["requests"] = e.requests;
    j["errors"] = e.errors;
    j["healthy"] = e.healthy;
  }
}

void from_json(const json& j, MetricsEvent& e) {
  read(j, "model", e.model);
  read(j, "queue", e.queue);
  read(j, "running", e.running);
  read(j, "batch", e.batch);
  read(j, "ttft_p50", e.ttft_p50);
  read(j, "ttft_p99", e.ttft_p99);
  read(j, "prompt_tps", e.prompt_tps);
  read(j, "gen_tps", e.gen_tps);
  read(j, "prefix_hit_rate", e.prefix_hit_rate);
  read(j, "kv_used", e.kv_used);
  read(j, "kv_total", e.kv_total);
  read(j, "kv_window_used", e.kv_window_used);
  read(j, "kv_window_total", e.kv_window_total);
  read(j, "preemptions", e.preemptions);
  read(j, "deadline_misses", e.deadline_misses);
  read(j, "engine_deadline_misses", e.engine_deadline_misses);
  read(j, "source", e.source);
  read(j, "requests", e.requests);
  read(j, "errors", e.errors);
  read(j, "healthy", e.healthy);
}

void to_json(json& j, const TournamentEnd& e) {
  j = {{"interrupted", e.interrupted},
       {"games_done", e.games_done},
       {"sprt_stopped", e.sprt_stopped},
       {"deadline_misses", e.deadline_misses},
       {"ticks", e.ticks}};
}

void from_json(const json& j, TournamentEnd& e) {
  read(j, "interrupted", e.interrupted);
  read(j, "games_done", e.games_done);
  read(j, "sprt_stopped", e.sprt_stopped);
  read(j, "deadline_misses", e.deadline_misses);
  read(j, "ticks", e.ticks);
}

void to_json(json& j, const Event& e) {
  std::visit([&](const auto& body) { j = body; }, e.body);
  j["type"] = type_name(e.body);
  j["time"] = e.time;
  if (e.seq) j["seq"] = *e.seq;
}

namespace {

template <typename T>
Event make(const json& j) {
  Event e;
  e.body = j.get<T>();
  return e;
}

}  // namespace

std::expected<Event, std::string> parse_event(const json& j) {
  if (!j.is_object()) return std::unexpected(std::string("an event must be a JSON object"));
  std::string type;
  try {
    read(j, "type", type);
    Event e;
    if (type == "tournament_start")
      e = make<TournamentStart>(j);
    else if (type == "game_start")
      e = make<GameStart>(j);
    else if (type == "move")
      e = make<MoveEvent>(j);
    else if (type == "game_end")
      e = make<GameEnd>(j);
    else if (type == "standings")
      e = make<StandingsEvent>(j);
    else if (type == "metrics")
      e = make<MetricsEvent>(j);
    else if (type == "tournament_end")
      e = make<TournamentEnd>(j);
    else
      return std::unexpected("unknown event type '" + type + "'");
    read(j, "seq", e.seq);
    read(j, "time", e.time);
    return e;
  } catch (const std::exception& ex) {
    return std::unexpected("event '" + type + "': " + ex.what());
  }
}

}  // namespace arena::tournament
