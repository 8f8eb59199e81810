// The typed tournament events: each type's JSON has docs/events.md's fields (names, null-ness,
// absent fields), reads back into the same struct, and bad input is an error, not a crash.
#include "arena/tournament/events.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace arena;
using namespace arena::tournament;
using nlohmann::json;

namespace {

// The event's JSON, read back and written again.
json round_trip(const Event& e) {
  const json j = e;
  auto back = parse_event(j);
  REQUIRE(back.has_value());
  return json(*back);
}

}  // namespace

TEST_CASE("a move event has the log's fields and reads back", "[arena]") {
  MoveEvent m;
  m.game = "g0001";
  m.ply = 3;
  m.first_side = true;
  m.agent = "alpha";
  m.uci = "e2e4";
  m.human = "e4";
  m.clock_ms = std::array<int64_t, 2>{59000, 60000};
  m.substitute = config::DeadlinePolicy::RandomMove;
  m.failure = agents::MoveFailure{agents::FailureKind::Timeout, "no answer before the deadline"};
  const Event e{7, 1.5, m};
  const json j = e;
  CHECK(j["type"] == "move");
  CHECK(j["seq"] == 7);
  CHECK(j["side"] == "first");
  CHECK(j["substitute"] == "random_move");
  CHECK(j["failure"] == json({{"kind", "timeout"}, {"message", "no answer before the deadline"}}));
  CHECK(j["score_cp"].is_null());
  CHECK_FALSE(j.contains("referee_cp"));  // only when the tournament has a referee
  CHECK(j.size() == 23);
  CHECK(round_trip(e) == j);

  m.substitute.reset();
  m.failure.reset();
  m.clock_ms.reset();
  m.has_referee = true;
  const json k = Event{std::nullopt, 2.0, m};
  CHECK(k["substitute"].is_null());
  CHECK(k["failure"].is_null());
  CHECK(k["clock_ms"].is_null());
  CHECK(k["referee_cp"].is_null());
  CHECK(k["referee_best"].is_null());
  CHECK_FALSE(k.contains("seq"));
  CHECK(round_trip(Event{std::nullopt, 2.0, m}) == k);
  m.referee_cp = -35;
  m.referee_best = "e7e5";
  const json r = Event{std::nullopt, 2.0, m};
  CHECK(r["referee_cp"] == -35);
  CHECK(r["referee_best"] == "e7e5");
  CHECK(round_trip(Event{std::nullopt, 2.0, m}) == r);
  // A log written before `referee_best` existed reads as having none.
  json old = r;
  old.erase("referee_best");
  const auto parsed = parse_event(old);
  REQUIRE(parsed.has_value());
  CHECK(std::get<MoveEvent>(parsed->body).referee_cp == -35);
  CHECK_FALSE(std::get<MoveEvent>(parsed->body).referee_best.has_value());

  // An agent on a fleet names the replica that answered; others write no `replica`.
  CHECK_FALSE(k.contains("replica"));
  m.replica = "http://10.0.0.2:8000/v1";
  const json f = Event{std::nullopt, 2.0, m};
  CHECK(f["replica"] == "http://10.0.0.2:8000/v1");
  CHECK(round_trip(Event{std::nullopt, 2.0, m}) == f);
}

TEST_CASE("every event type reads back as written", "[arena]") {
  GameEnd end{"g0002", 1, "0-1", "loss on time by a", "time forfeit", 12, "a", agents::FailureKind::Timeout};
  const json j = Event{3, 4.0, end};
  CHECK(j["failure_agent"] == "a");
  CHECK(j["failure_kind"] == "timeout");
  end.failure_agent.clear();
  end.failure_kind.reset();
  CHECK_FALSE(json(Event{3, 4.0, end}).contains("failure_kind"));
  StandingsEvent st;
  st.rows.push_back({"a", 2, 2, 0, 0, 2.0, std::nullopt, std::nullopt, std::nullopt, 0.0, 1500.0,
                     std::nullopt, ">", std::nullopt});
  CHECK(json(Event{4, 5.0, st})["rows"][0]["elo"].is_null());
  CHECK(json(Event{4, 5.0, st})["rows"][0]["rating_bound"] == ">");
  CHECK_FALSE(json(Event{4, 5.0, st})["rows"][0].contains("acpl"));  // no referee: no move quality
  st.rows.push_back({"b", 2, 0, 0, 2, 0.0, std::nullopt, std::nullopt, std::nullopt, 0.0, std::nullopt,
                     std::nullopt, "", StandingsQuality{31.5, std::nullopt, 3, 2, 1}});
  CHECK_FALSE(json(Event{4, 5.0, st})["rows"][1].contains("rating"));
  const json quality = json(Event{4, 5.0, st})["rows"][1];
  CHECK(quality["acpl"] == 31.5);
  CHECK(quality["accuracy"].is_null());
  CHECK(quality["inaccuracies"] == 3);
  CHECK(quality["mistakes"] == 2);
  CHECK(quality["blunders"] == 1);
  MetricsEvent metrics;
  metrics.model = "m";
  CHECK(json(Event{std::nullopt, 1, metrics})["deadline_misses"].is_null());
  CHECK_FALSE(json(Event{std::nullopt, 1, metrics}).contains("source"));
  CHECK_FALSE(json(Event{std::nullopt, 1, metrics}).contains("errors"));           // a replica's only
  CHECK_FALSE(json(Event{std::nullopt, 1, metrics}).contains("kv_window_total"));  // a window pool's only
  MetricsEvent windowed = metrics;
  windowed.kv_window_used = 3;
  windowed.kv_window_total = 80;
  CHECK(json(Event{std::nullopt, 1, windowed})["kv_window_total"] == 80);
  CHECK(round_trip(Event{std::nullopt, 1, windowed}) == json(Event{std::nullopt, 1, windowed}));
  MetricsEvent replica;
  replica.model = "http://10.0.0.2:8000/v1";
  replica.source = "replica";
  replica.requests = 7;
  replica.errors = 2;
  replica.healthy = false;
  CHECK(json(Event{std::nullopt, 1, replica})["healthy"] == false);
  CHECK(round_trip(Event{std::nullopt, 1, replica}) == json(Event{std::nullopt, 1, replica}));
  for (const Event& e :
       {Event{1, 1, TournamentStart{"h", "v", 7, {"chess"}, {"a", "b"}, {}, 2, false, 0}},
        Event{2, 2, GameStart{"g0001", 0, -1, "chess", "a", "b", "fen", "", std::nullopt}}, Event{3, 3, end},
        Event{4, 4, st}, Event{std::nullopt, 5, metrics}, Event{6, 6, TournamentEnd{false, 2, false, 0, 10}}})
    CHECK(round_trip(e) == json(e));
}

TEST_CASE("a malformed event is an error", "[arena]") {
  CHECK_FALSE(parse_event(json::array()).has_value());
  CHECK_FALSE(parse_event(json{{"type", "nonsense"}}).has_value());
  CHECK_FALSE(parse_event(json{{"type", "move"}, {"ply", "three"}}).has_value());
  // Numbers an integer field cannot hold (http_ws_fuzzer: a seq of 2e60 was converted with
  // undefined behaviour).
  const auto huge = parse_event(json{{"type", "tournament_start"}, {"seq", 2e60}});
  REQUIRE_FALSE(huge.has_value());
  CHECK(huge.error() == "event 'tournament_start': field 'seq': 2e+60 is out of range");
  CHECK_FALSE(parse_event(json{{"type", "move"}, {"ply", 1e30}}).has_value());
  CHECK_FALSE(parse_event(json{{"type", "move"}, {"ply", 4294967296LL}}).has_value());
  CHECK_FALSE(parse_event(json{{"type", "move"}, {"clock_ms", {1e300, 0}}}).has_value());
  CHECK_FALSE(
      parse_event(json{{"type", "move"}, {"ply", std::numeric_limits<double>::quiet_NaN()}}).has_value());
  CHECK(parse_event(json{{"type", "move"}, {"ply", 3.0}}).has_value());  // a whole float is a number
  CHECK_FALSE(parse_event(json{{"type", "move"}, {"failure", {{"kind", "bored"}}}}).has_value());
  CHECK_FALSE(parse_event(json{{"type", "move"}, {"substitute", "coin_flip"}}).has_value());
  // Missing and null fields keep their defaults; unknown fields are ignored.
  auto lenient = parse_event(json{{"type", "game_start"}, {"opening", nullptr}, {"extra", 1}});
  REQUIRE(lenient.has_value());
  CHECK(std::get<GameStart>(lenient->body).pair == -1);
}
