// `arena view`'s server over real sockets: results folders' logs (one written by EventLog, as
// `arena run` writes it) served as the list of tournaments and, under /t/<slug>/, the pages, REST
// API, PGN and WebSocket feed of `arena run`; a growing log followed live (a torn line waits for
// its end), a replaced log resetting the hub; a folder without a log, or a damaged log, an error
// naming the file and line.
#include "arena/server/view_server.h"

#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "arena/tournament/event_log.h"
#include "arena/tournament/run_lock.h"
#include "tests/server/event_maker.h"
#include "tests/server/http_client.h"

namespace fs = std::filesystem;
using arena::server::ViewOptions;
using arena::server::ViewServer;
using arena::test::EventMaker;
using arena::test::http_get;
using arena::test::WsClient;
using nlohmann::json;

namespace {

struct Tree {
  fs::path base;
  Tree() {
    char tmpl[] = "/tmp/arena-view-test-XXXXXX";
    base = mkdtemp(tmpl);
    fs::create_directories(base / "web");
    std::ofstream(base / "web" / "tournaments.html") << "<html>tournaments</html>";
    std::ofstream(base / "web" / "index.html") << "<html>overview</html>";
    std::ofstream(base / "web" / "game.html") << "<html>game</html>";
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  fs::path folder(const std::string& name) {
    fs::create_directories(base / name);
    return base / name;
  }
};

void append(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::app | std::ios::binary) << text;
}

std::string line(const json& j) {
  return j.dump() + "\n";
}

// The events as lines, made in order (a braced list is evaluated left to right; `a + b` is not).
std::string lines(std::initializer_list<json> events) {
  std::string out;
  for (const auto& j : events) out += line(j);
  return out;
}

// A finished one-game tournament written by the run's own EventLog.
void write_finished(const fs::path& dir) {
  auto log = arena::tournament::EventLog::open(dir / "events.jsonl", false, nullptr);
  REQUIRE(log.has_value());
  EventMaker ev;
  std::vector<json> events = {ev.tournament_start(1), ev.game_start("g0001", "chess")};
  for (int i = 0; i < 6; ++i) events.push_back(ev.random_move());
  events.push_back(ev.game_end());
  events.push_back(ev.standings());
  auto end = ev.base("tournament_end");
  end.update({{"interrupted", false}, {"games_done", 1}});
  events.push_back(end);
  for (const json& j : events) {
    auto e = arena::test::event(j);
    REQUIRE(log->append(e).has_value());
  }
}

std::unique_ptr<ViewServer> start(const Tree& tree, const std::vector<fs::path>& dirs) {
  arena::config::WebConfig web;
  web.port = 0;
  ViewOptions options;
  options.poll_interval = std::chrono::milliseconds(20);
  auto view = ViewServer::start(web, tree.base / "web", dirs, options);
  REQUIRE(view.has_value());
  return std::move(*view);
}

// The next message of `ws` whose type is `type` (others skipped), or null after a timeout.
json next_of(WsClient& ws, const std::string& type) {
  for (int i = 0; i < 50; ++i) {
    auto m = ws.read(std::chrono::milliseconds(3000));
    if (!m) return nullptr;
    if ((*m)["type"] == type) return *m;
  }
  return nullptr;
}

std::string error_of(const Tree& tree, const std::vector<fs::path>& dirs) {
  arena::config::WebConfig web;
  web.port = 0;
  auto view = ViewServer::start(web, tree.base / "web", dirs);
  REQUIRE_FALSE(view.has_value());
  return view.error();
}

}  // namespace

TEST_CASE("arena view serves each folder's tournament and the list of them", "[server][view]") {
  Tree tree;
  const fs::path done = tree.folder("done"), live = tree.folder("live");
  write_finished(done);
  EventMaker ev;
  append(live / "events.jsonl",
         lines({ev.tournament_start(2), ev.game_start("g0001", "janggi"), ev.random_move()}));
  auto view = start(tree, {done, live});
  const uint16_t port = view->server().port();

  auto list = http_get(port, "/api/tournaments");
  REQUIRE(list.status == 200);
  const json t = json::parse(list.body);
  REQUIRE(t.size() == 2);
  CHECK(t[0]["name"] == "done");
  CHECK(t[0]["url"] == "/t/done/");
  CHECK(t[0]["status"] == "finished");
  CHECK(t[0]["games_done"] == 1);
  CHECK(t[0]["games_total"] == 1);
  CHECK(t[0]["agents"] == json({"alpha", "beta"}));
  REQUIRE(t[0]["standings"].size() == 2);
  CHECK(t[0]["standings"][0]["points"] == 0.5);
  CHECK(t[1]["name"] == "live");
  CHECK(t[1]["status"] == "running");
  CHECK(t[1]["games_in_flight"] == 1);
  CHECK(t[1]["last_event_time"] == ev.time());  // the newest event's, for a run that stalled

  CHECK(http_get(port, "/").body == "<html>tournaments</html>");
  CHECK(http_get(port, "/t/done/").body == "<html>overview</html>");
  CHECK(http_get(port, "/t/done").body == "<html>overview</html>");
  CHECK(http_get(port, "/t/done/game/g0001").body == "<html>game</html>");
  auto games = http_get(port, "/t/done/api/games");
  REQUIRE(games.status == 200);
  REQUIRE(json::parse(games.body).size() == 1);
  CHECK(json::parse(games.body)[0]["result"] == "1/2-1/2");
  auto game = http_get(port, "/t/done/api/games/g0001");
  REQUIRE(game.status == 200);
  CHECK(json::parse(game.body)["moves"].size() == 6);
  auto pgn = http_get(port, "/t/done/api/games/g0001.pgn");
  REQUIRE(pgn.status == 200);
  CHECK(pgn.body.find("[Result \"1/2-1/2\"]") != std::string::npos);
  CHECK(http_get(port, "/t/live/api/tournament").status == 200);
  CHECK(http_get(port, "/t/done/metrics").body.find("arena:tournament_games_done 1") != std::string::npos);
  CHECK(http_get(port, "/health").body == "ok\n");

  // What is not there, and what a read-only server does not do.
  CHECK(http_get(port, "/t/nope/").status == 404);
  CHECK(http_get(port, "/api/games").status == 404);
  CHECK(http_get(port, "/v1/models").status == 404);
  CHECK(arena::test::http_post(port, "/api/tournaments", "{}").status == 405);
  CHECK_FALSE(WsClient(port, "/ws").ok());
  CHECK_FALSE(WsClient(port, "/t/nope/ws").ok());
}

TEST_CASE("arena view tells a live run from one that died, by the folder's run lock", "[server][view]") {
  Tree tree;
  const fs::path live = tree.folder("live"), dead = tree.folder("dead"), done = tree.folder("done");
  EventMaker ev;
  for (const fs::path& dir : {live, dead})
    append(dir / "events.jsonl", lines({ev.tournament_start(2), ev.game_start("g0001", "chess")}));
  write_finished(done);
  auto holder = arena::tournament::RunLock::acquire(live);  // the run writing `live`
  REQUIRE(holder);
  REQUIRE(arena::tournament::RunLock::acquire(dead));  // a run that took `dead` and ended at once
  REQUIRE(arena::tournament::RunLock::acquire(done));
  auto view = start(tree, {live, dead, done});
  auto statuses = [&] {
    const json t = json::parse(http_get(view->server().port(), "/api/tournaments").body);
    std::vector<std::string> out;
    for (const json& one : t) out.push_back(one["status"]);
    return out;
  };
  CHECK(statuses() == std::vector<std::string>{"running", "stopped", "finished"});
  auto resumed = arena::tournament::RunLock::acquire(dead);
  REQUIRE(resumed);
  *holder = std::move(*resumed);  // `live` released, `dead` resumed
  CHECK(statuses() == std::vector<std::string>{"stopped", "running", "finished"});
}
TEST_CASE("arena view follows a growing log live and resets on a replaced one", "[server][view]") {
  Tree tree;
  const fs::path live = tree.folder("live");
  const fs::path log = live / "events.jsonl";
  EventMaker ev;
  append(log, lines({ev.tournament_start(2), ev.game_start("g0001", "chess")}));
  auto view = start(tree, {live});
  const uint16_t port = view->server().port();

  WsClient ws(port, "/t/live/ws");
  REQUIRE(ws.ok());
  const json snap = next_of(ws, "snapshot");
  REQUIRE(snap.is_object());
  CHECK(snap["snapshot"]["games"].size() == 1);

  // A move appended by the run arrives as a live event; one torn in two arrives once whole.
  append(log, line(ev.random_move()));
  json move = next_of(ws, "event");
  REQUIRE(move.is_object());
  CHECK(move["event"]["type"] == "move");
  CHECK(move["event"]["ply"] == 1);
  const std::string second = line(ev.random_move());
  append(log, second.substr(0, 20));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // several polls see the torn line
  append(log, second.substr(20));
  move = next_of(ws, "event");
  REQUIRE(move.is_object());
  CHECK(move["event"]["ply"] == 2);
  CHECK(json::parse(http_get(port, "/t/live/api/games/g0001").body)["moves"].size() == 2);

  // A new run in the same folder: the page gets a fresh snapshot of the new log alone.
  fs::remove(log);
  EventMaker next;
  next.base("skip");
  append(log, line(next.tournament_start(6)));
  const json reset = next_of(ws, "snapshot");
  REQUIRE(reset.is_object());
  CHECK(reset["snapshot"]["games"].empty());
  json ev_start = next_of(ws, "event");
  REQUIRE(ev_start.is_object());
  CHECK(ev_start["event"]["type"] == "tournament_start");
  const json t = json::parse(http_get(port, "/api/tournaments").body);
  CHECK(t[0]["games_total"] == 6);
  CHECK(t[0]["moves"] == 0);
}

TEST_CASE("arena view refuses a folder without a log and a damaged log, naming the file", "[server][view]") {
  Tree tree;
  const fs::path empty = tree.folder("empty");
  CHECK(error_of(tree, {tree.base / "missing"}).find("is not a folder") != std::string::npos);
  const std::string no_log = error_of(tree, {empty});
  CHECK(no_log.find((empty / "events.jsonl").string()) != std::string::npos);

  const fs::path bad = tree.folder("bad");
  EventMaker ev;
  const std::string first = line(ev.tournament_start(2));
  append(bad / "events.jsonl", first + "{oops\n" + line(ev.game_start("g0001", "chess")));
  CHECK(error_of(tree, {bad}) == (bad / "events.jsonl").string() + ":2: not a JSON event");

  // A torn last line (a run that crashed mid-write) is fine: the events before it are served.
  const fs::path torn = tree.folder("torn");
  append(torn / "events.jsonl", line(ev.tournament_start(2)) + R"({"type":"game_st)");
  auto view = start(tree, {torn});
  const json t = json::parse(http_get(view->server().port(), "/api/tournaments").body);
  CHECK(t[0]["status"] == "running");
  CHECK(t[0]["games_total"] == 2);
}
