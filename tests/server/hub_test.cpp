// The hub without sockets: its state from real game events, snapshots, per-client sequence
// numbers, subscriptions, the gap a congested client sees, and PGN from the events (the
// tournament's writer).
#include "arena/server/hub.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>

#include "arena/server/prometheus.h"
#include "arena/tournament/pgn_writer.h"
#include "tests/server/event_maker.h"

using arena::server::Hub;
using arena::server::HubClient;
using nlohmann::json;

namespace {

// A client that keeps what it is sent, refusing droppable messages once `capacity` are queued.
class FakeClient : public HubClient {
 public:
  explicit FakeClient(size_t capacity = 1000) : capacity_(capacity) {}
  bool deliver(std::shared_ptr<const std::string> message, bool droppable) override {
    if (droppable && messages.size() >= capacity_) return false;
    messages.push_back(json::parse(*message));
    return true;
  }
  std::deque<json> messages;

 private:
  size_t capacity_;
};

Hub make_hub() {
  return Hub([](std::function<void()> f) { f(); });
}

}  // namespace

TEST_CASE("hub keeps games in flight, moves and standings from real game events", "[server]") {
  Hub hub = make_hub();
  arena::test::EventMaker ev;
  hub.on_event(arena::test::event(ev.tournament_start(4)));
  hub.on_event(arena::test::event(ev.game_start("g0001", "chess")));
  for (int i = 0; i < 10; ++i) hub.on_event(arena::test::event(ev.random_move()));
  const std::string fen = ev.game().fen();

  auto games = hub.games_json();
  REQUIRE(games.size() == 1);
  CHECK(games[0]["id"] == "g0001");
  CHECK(games[0]["plies"] == 10);
  CHECK(games[0]["fen"] == fen);
  CHECK(games[0]["in_flight"] == true);
  CHECK(games[0]["board"]["squares"].size() == 64);

  auto game = hub.game_json("g0001");
  REQUIRE(game);
  CHECK((*game)["moves"].size() == 10);
  CHECK((*game)["moves"][9]["fen"] == fen);
  CHECK((*game)["moves"][0].contains("check_square"));
  const std::string pgn = (*game)["pgn"];
  CHECK(pgn.find("[White \"alpha\"]") != std::string::npos);
  CHECK(pgn.find("1. ") != std::string::npos);
  CHECK(pgn.find(" *") != std::string::npos);

  CHECK((*game)["termination"].is_null());  // in flight
  auto end = ev.game_end("1-0", "checkmate");
  end["termination"] = "normal";
  hub.on_event(arena::test::event(end));
  hub.on_event(arena::test::event(ev.standings()));
  // The game page needs it to judge a last move the rules ended (web/js/quality.js).
  CHECK(hub.game_json("g0001")->at("termination") == "normal");
  CHECK(hub.stats().games_done == 1);
  CHECK(hub.stats().games_in_flight == 0);
  CHECK(hub.stats().games_total == 4);
  CHECK(hub.standings_json().size() == 2);
  CHECK(hub.game_json("g0001")->at("pgn").get<std::string>().find("1-0") != std::string::npos);
  CHECK_FALSE(hub.game_json("g9999"));
}

TEST_CASE("hub marks the checked king's square in move events", "[server]") {
  Hub hub = make_hub();
  arena::test::EventMaker ev;
  hub.on_event(arena::test::event(ev.game_start("g0001", "chess")));
  // 1. e4 f5 2. Qh5+ : the black king on e8 is in check.
  for (const char* uci : {"e2e4", "f7f5", "d1h5"}) {
    json e = ev.base("move");
    const std::string human = *ev.game().to_human(uci);
    (void)ev.game().apply(uci);
    e.update({{"game", "g0001"},
              {"ply", ev.game().ply()},
              {"uci", uci},
              {"human", human},
              {"fen", ev.game().fen()}});
    hub.on_event(arena::test::event(e));
  }
  auto game = hub.game_json("g0001");
  REQUIRE(game);
  CHECK((*game)["moves"][2]["check_square"] == "e8");
  CHECK((*game)["moves"][1]["check_square"].is_null());
  CHECK((*game)["check_square"] == "e8");
}

TEST_CASE("hub numbers each client's messages and filters by subscription", "[server]") {
  Hub hub = make_hub();
  arena::test::EventMaker ev;
  FakeClient overview, game_view, dashboard;
  hub.join(&overview);
  hub.join(&game_view);
  hub.join(&dashboard);
  hub.handle_message(&game_view, R"({"type":"subscribe","view":"game","game":"g0002"})");
  hub.handle_message(&dashboard, R"({"type":"subscribe","view":"dashboard"})");
  REQUIRE(overview.messages.size() == 1);
  CHECK(overview.messages[0]["type"] == "snapshot");
  CHECK(overview.messages[0]["seq"] == 1);
  REQUIRE(game_view.messages.size() == 2);
  CHECK(game_view.messages[1]["snapshot"]["view"] == "game");
  CHECK(game_view.messages[1]["seq"] == 2);

  hub.on_event(arena::test::event(ev.game_start("g0001", "chess")));
  hub.on_event(arena::test::event(ev.random_move()));
  hub.on_event(arena::test::event(ev.metrics("m", 2)));
  // The overview sees both game events (not metrics), in sequence.
  REQUIRE(overview.messages.size() == 3);
  CHECK(overview.messages[1]["seq"] == 2);
  CHECK(overview.messages[2]["seq"] == 3);
  CHECK(overview.messages[2]["event"]["type"] == "move");
  // The watcher of another game sees none of them; the dashboard only the metrics sample.
  CHECK(game_view.messages.size() == 2);
  REQUIRE(dashboard.messages.size() == 3);
  CHECK(dashboard.messages[2]["event"]["type"] == "metrics");
  CHECK(dashboard.messages[2]["seq"] == 3);

  hub.handle_message(&overview, "not json");
  CHECK(overview.messages.back()["type"] == "error");
  hub.handle_message(&overview, R"({"type":"subscribe","view":"nope"})");
  CHECK(overview.messages.back()["type"] == "error");
  hub.leave(&overview);
  hub.on_event(arena::test::event(ev.random_move()));
  CHECK(overview.messages.size() == 5);  // no more after leaving
}

TEST_CASE("a congested client misses droppable events, sees the gap and resyncs", "[server]") {
  Hub hub = make_hub();
  arena::test::EventMaker ev;
  FakeClient slow(3);
  hub.join(&slow);                                                     // seq 1
  hub.on_event(arena::test::event(ev.game_start("g0001", "janggi")));  // seq 2 (not droppable)
  hub.on_event(arena::test::event(ev.random_move()));                  // seq 3
  hub.on_event(arena::test::event(ev.random_move()));  // seq 4: the client is full and skips it
  REQUIRE(slow.messages.size() == 3);
  slow.messages.clear();                               // the client catches up
  hub.on_event(arena::test::event(ev.random_move()));  // seq 5
  REQUIRE(slow.messages.size() == 1);
  const int64_t seq = slow.messages[0]["seq"];
  CHECK(seq == 5);  // 4 never came: a gap
  hub.handle_message(&slow, R"({"type":"resync"})");
  REQUIRE(slow.messages.size() == 2);
  const json& snap = slow.messages[1];
  CHECK(snap["type"] == "snapshot");
  CHECK(snap["seq"] == 6);
  REQUIRE(snap["snapshot"]["games"].size() == 1);
  CHECK(snap["snapshot"]["games"][0]["plies"] == 3);  // all three moves, the missed one too
  CHECK(snap["snapshot"]["games"][0]["fen"] == ev.game().fen());
  CHECK(snap["snapshot"]["games"][0]["board"]["squares"].size() == 90);
}

TEST_CASE("hub keeps the last hour of metrics samples per model", "[server]") {
  Hub hub([](std::function<void()> f) { f(); }, /*history_seconds=*/10);
  arena::test::EventMaker ev;
  for (int i = 0; i < 100; ++i) hub.on_event(arena::test::event(ev.metrics("m", i)));  // 0.25 s apart
  const json history = hub.metrics_history_json();
  const auto& samples = history["models"]["m"];
  CHECK(samples.size() <= 41);
  CHECK(samples.size() >= 39);
  CHECK(samples.back()["queue"] == 99);
  CHECK(hub.has_recent_external_metrics("m", ev.time(), 5));
  CHECK_FALSE(hub.has_recent_external_metrics("other", ev.time(), 5));
}

TEST_CASE("hub and /metrics take events whose optional fields are null", "[server]") {
  Hub hub = make_hub();
  arena::test::EventMaker ev;
  json start = ev.game_start("g0001", "chess");
  start["opening"] = nullptr;
  start["clock_ms"] = nullptr;
  hub.on_event(arena::test::event(start));
  json move = ev.random_move();
  move["human"] = nullptr;
  move["raw"] = nullptr;
  move["latency_s"] = nullptr;
  hub.on_event(arena::test::event(move));
  json standings = ev.standings();
  standings["rows"][0]["elo"] = nullptr;
  standings["rows"][0]["los"] = nullptr;
  hub.on_event(arena::test::event(standings));
  auto game = hub.game_json("g0001");
  REQUIRE(game);
  CHECK((*game)["moves"].size() == 1);
  CHECK_FALSE((*game)["moves"][0]["human"].get<std::string>().empty());  // filled in from the board
  const std::string text = arena::server::render_prometheus({}, hub.stats(), hub.standings_json());
  CHECK(text.find("arena:agent_elo{agent=\"alpha\"} 0") != std::string::npos);
  CHECK(text.find("arena:tournament_moves_total 1") != std::string::npos);
}

TEST_CASE("the hub's PGN is games.pgn's: janggi in Fairy-Stockfish SAN, not Korean notation", "[server]") {
  Hub hub = make_hub();
  arena::test::EventMaker ev;
  const json start = ev.game_start("g0001", "janggi");
  hub.on_event(arena::test::event(start));
  arena::tournament::GameBook book;  // the runner's record of the same events
  book.apply(arena::test::event(start));
  for (int i = 0; i < 6; ++i) {
    const json move = ev.random_move();
    hub.on_event(arena::test::event(move));
    book.apply(arena::test::event(move));
  }
  const std::string pgn = hub.game_json("g0001")->at("pgn");
  CHECK(pgn.find("[Variant \"Janggi\"]") != std::string::npos);
  CHECK(pgn.find("[VariantRules \"janggi\"]") != std::string::npos);
  // The movetext, comments aside, is the tournament writer's for the same moves.
  auto expected = arena::tournament::game_to_pgn(*book.find("g0001"), {});
  REQUIRE(expected.has_value());
  auto movetext = [](const std::string& text) { return text.substr(text.find("\n\n")); };
  CHECK(movetext(pgn) == movetext(*expected));
  // Korean notation (a Hangul piece name in every move) stays in the move list, out of the PGN.
  CHECK(std::all_of(pgn.begin(), pgn.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
  CHECK_FALSE(hub.game_json("g0001")->at("moves")[0]["human"].get<std::string>().empty());
}

TEST_CASE("hub survives events that reuse a game's index under another id", "[server]") {
  Hub hub = make_hub();
  arena::test::EventMaker a, b;
  hub.on_event(arena::test::event(a.game_start("g0001", "chess", 0)));
  hub.on_event(arena::test::event(b.game_start("g0002", "chess", 0)));
  for (int i = 0; i < 3; ++i) hub.on_event(arena::test::event(a.random_move()));
  for (const char* id : {"g0001", "g0002"}) {
    auto game = hub.game_json(id);
    REQUIRE(game);
    CHECK((*game)["moves"].is_array());
  }
  CHECK(hub.games_json().size() == 2);
}
