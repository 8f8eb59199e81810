// The board server over real sockets with a Beast client: REST, the WebSocket snapshot and live
// events, resync, the size limits, the connection cap, a slow reader dropped with its memory
// bounded, timeouts, every path-traversal form refused, and /metrics read by Prometheus's parser.
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "arena/server/board_server.h"
#include "tests/server/event_maker.h"
#include "tests/server/http_client.h"

namespace fs = std::filesystem;
using arena::server::BoardServer;
using arena::server::ServerOptions;
using arena::test::EventMaker;
using arena::test::WsClient;
using nlohmann::json;

namespace {

// An asset folder with pages, a secret beside it, and symlinks leading out of it.
struct AssetTree {
  fs::path base, root;
  AssetTree() {
    char tmpl[] = "/tmp/arena-server-test-XXXXXX";
    base = mkdtemp(tmpl);
    root = base / "web";
    fs::create_directories(root / "js");
    std::ofstream(root / "index.html") << "<html>overview</html>";
    std::ofstream(root / "game.html") << "<html>game</html>";
    std::ofstream(root / "js" / "app.js") << "console.log(1);";
    std::ofstream(base / "secret.txt") << "TOPSECRET";
    fs::create_directory_symlink(base, root / "link");
    fs::create_symlink(base / "secret.txt", root / "secret-link.txt");
  }
  ~AssetTree() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
};

std::unique_ptr<BoardServer> start(const fs::path& assets, ServerOptions options = {}) {
  arena::config::WebConfig web;
  web.port = 0;
  auto server = BoardServer::start(web, assets, {}, std::move(options));
  REQUIRE(server.has_value());
  return std::move(*server);
}

// Waits until `pred` holds (polling), at most two seconds.
template <typename Pred>
bool eventually(Pred pred) {
  for (int i = 0; i < 200; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

int64_t ws_clients(BoardServer& server) {
  int64_t n = -1;
  server.run_on_io([&](arena::server::Hub& hub) { n = hub.stats().ws_clients; });
  return n;
}

}  // namespace

TEST_CASE("REST API, pages, health and errors", "[server]") {
  AssetTree tree;
  auto server = start(tree.root);
  const uint16_t port = server->port();
  CHECK(server->url() == fmt::format("http://127.0.0.1:{}/", port));
  EventMaker ev;
  auto* obs = server->observer();
  obs->on_event(arena::test::event(ev.tournament_start(2)));
  obs->on_event(arena::test::event(ev.game_start("g0001", "chess")));
  for (int i = 0; i < 6; ++i) obs->on_event(arena::test::event(ev.random_move()));
  obs->on_event(arena::test::event(ev.game_end("1/2-1/2", "adjudicated draw")));
  obs->on_event(arena::test::event(ev.standings()));
  obs->on_event(arena::test::event(ev.metrics("m", 4)));

  auto t = arena::test::http_get(port, "/api/tournament");
  REQUIRE(t.status == 200);
  CHECK(json::parse(t.body)["games_total"] == 2);
  CHECK(json::parse(t.body)["games_done"] == 1);
  auto g = arena::test::http_get(port, "/api/games");
  REQUIRE(g.status == 200);
  CHECK(json::parse(g.body).size() == 1);
  auto one = arena::test::http_get(port, "/api/games/g0001");
  REQUIRE(one.status == 200);
  const json game = json::parse(one.body);
  CHECK(game["moves"].size() == 6);
  CHECK(game["result"] == "1/2-1/2");
  CHECK(game["pgn"].get<std::string>().find("[Result \"1/2-1/2\"]") != std::string::npos);
  auto pgn = arena::test::http_get(port, "/api/games/g0001.pgn");
  CHECK(pgn.status == 200);
  CHECK(pgn.raw[arena::test::http::field::content_type].starts_with("application/x-chess-pgn"));
  CHECK(arena::test::http_get(port, "/api/games/nope").status == 404);
  CHECK(json::parse(arena::test::http_get(port, "/api/standings").body).size() == 2);
  auto history = arena::test::http_get(port, "/api/metrics/history");
  REQUIRE(history.status == 200);
  CHECK(json::parse(history.body)["models"]["m"].size() == 1);
  CHECK(arena::test::http_get(port, "/api/metrics/history?since=abc").status == 400);
  CHECK(arena::test::http_get(port, "/health").body == "ok\n");
  CHECK(arena::test::http_get(port, "/").body == "<html>overview</html>");
  CHECK(arena::test::http_get(port, "/game/g0001").body == "<html>game</html>");
  CHECK(arena::test::http_get(port, "/js/app.js")
            .raw[arena::test::http::field::content_type]
            .starts_with("text/javascript"));
  CHECK(arena::test::http_get(port, "/missing.css").status == 404);
  CHECK(arena::test::http_get(port, "/v1/models").status == 404);  // no API handler here
  CHECK(arena::test::http_post(port, "/api/games", "{}").status == 405);
}

TEST_CASE("WebSocket: snapshot on connect and subscribe, live move events, resync", "[server]") {
  AssetTree tree;
  auto server = start(tree.root);
  EventMaker ev;
  auto* obs = server->observer();
  obs->on_event(arena::test::event(ev.tournament_start(2)));
  obs->on_event(arena::test::event(ev.game_start("g0001", "janggi")));
  for (int i = 0; i < 4; ++i) obs->on_event(arena::test::event(ev.random_move()));

  WsClient ws(server->port());
  REQUIRE(ws.ok());
  auto snap = ws.read();
  REQUIRE(snap);
  CHECK((*snap)["type"] == "snapshot");
  CHECK((*snap)["seq"] == 1);
  REQUIRE((*snap)["snapshot"]["games"].size() == 1);
  CHECK((*snap)["snapshot"]["games"][0]["plies"] == 4);

  // Opening a game mid-way gives its current position and every move at once.
  REQUIRE(ws.send(R"({"type":"subscribe","view":"game","game":"g0001"})"));
  auto game = ws.read();
  REQUIRE(game);
  CHECK((*game)["seq"] == 2);
  CHECK((*game)["snapshot"]["game"]["moves"].size() == 4);
  CHECK((*game)["snapshot"]["game"]["fen"] == ev.game().fen());

  // A live move arrives as the next event.
  obs->on_event(arena::test::event(ev.random_move()));
  auto move = ws.read();
  REQUIRE(move);
  CHECK((*move)["type"] == "event");
  CHECK((*move)["seq"] == 3);
  CHECK((*move)["event"]["type"] == "move");
  CHECK((*move)["event"]["ply"] == 5);
  CHECK((*move)["event"]["fen"] == ev.game().fen());

  // A client that saw a gap asks again and gets the whole state, numbered after the last event.
  obs->on_event(arena::test::event(ev.random_move()));
  REQUIRE(ws.read());  // seq 4, pretend it was lost
  REQUIRE(ws.send(R"({"type":"resync"})"));
  auto again = ws.read();
  REQUIRE(again);
  CHECK((*again)["type"] == "snapshot");
  CHECK((*again)["seq"] == 5);
  CHECK((*again)["snapshot"]["game"]["moves"].size() == 6);

  REQUIRE(ws.send(R"({"type":"ping"})"));
  auto pong = ws.read();
  REQUIRE(pong);
  CHECK((*pong)["type"] == "pong");
}

TEST_CASE("an oversize WebSocket message closes the connection with 1009", "[server]") {
  AssetTree tree;
  ServerOptions options;
  options.limits.max_ws_message_bytes = 1024;
  auto server = start(tree.root, options);
  WsClient ws(server->port());
  REQUIRE(ws.ok());
  REQUIRE(ws.read());  // snapshot
  REQUIRE(ws.send(std::string(4096, 'x')));
  CHECK_FALSE(ws.read());
  CHECK(ws.close_code() == 1009);
  CHECK(eventually([&] { return ws_clients(*server) == 0; }));
}

TEST_CASE("connections beyond the cap get 503", "[server]") {
  AssetTree tree;
  ServerOptions options;
  options.limits.max_connections = 3;
  auto server = start(tree.root, options);
  std::vector<std::unique_ptr<WsClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<WsClient>(server->port()));
    REQUIRE(clients.back()->ok());
    REQUIRE(clients.back()->read());
  }
  auto refused = arena::test::http_get(server->port(), "/health");
  CHECK(refused.status == 503);
  CHECK(refused.raw[arena::test::http::field::retry_after] == "1");
  clients.pop_back();  // one leaves: a slot frees
  CHECK(eventually([&] { return server->num_connections() == 2; }));
  CHECK(arena::test::http_get(server->port(), "/health").status == 200);
}

TEST_CASE("a WebSocket reader that does not read is dropped with its queue bounded", "[server]") {
  AssetTree tree;
  ServerOptions options;
  options.limits.ws_queue_soft = 16;
  options.limits.ws_queue_hard = 32;
  options.limits.ws_queue_bytes = 512 << 10;
  auto server = start(tree.root, options);
  WsClient slow(server->port());
  REQUIRE(slow.ok());
  WsClient good(server->port());
  REQUIRE(good.ok());
  REQUIRE(eventually([&] { return ws_clients(*server) == 2; }));

  EventMaker ev;
  auto* obs = server->observer();
  obs->on_event(arena::test::event(ev.game_start("g0001", "chess")));
  // 64 KiB per event: the socket buffers fill, then the queue, then the server drops the client.
  // game_end is not droppable, so the hard limit is what removes it.
  size_t good_events = 0;
  for (int i = 0; i < 400 && ws_clients(*server) == 2; ++i) {
    obs->on_event(arena::test::event(ev.random_move(64 << 10)));
    obs->on_event(arena::test::event(ev.standings()));
    while (auto m = good.read(std::chrono::milliseconds(200))) {
      if ((*m)["type"] == "event") ++good_events;
      if ((*m)["event"]["type"] == "standings") break;
    }
  }
  CHECK(eventually([&] { return ws_clients(*server) == 1; }));
  CHECK(good_events > 0);
  // The slow client's connection is gone: reading it ends (after whatever was already in flight).
  bool closed = false;
  for (int i = 0; i < 10000 && !closed; ++i) closed = !slow.read_text(std::chrono::milliseconds(2000));
  CHECK(closed);
  // The good client still gets events.
  obs->on_event(arena::test::event(ev.standings()));
  auto m = good.read();
  while (m && (*m)["type"] == "event" && (*m)["event"]["type"] != "standings") m = good.read();
  REQUIRE(m);
  CHECK((*m)["event"]["type"] == "standings");
}

TEST_CASE("static files cannot escape the asset folder", "[server]") {
  AssetTree tree;
  auto server = start(tree.root);
  const uint16_t port = server->port();
  const char* attacks[] = {
      "/../secret.txt",
      "/js/../../secret.txt",
      "/%2e%2e/secret.txt",
      "/%2E%2E/secret.txt",
      "/js/%2e%2e/%2e%2e/secret.txt",
      "/..%2fsecret.txt",
      "/%2e%2e%2fsecret.txt",
      "//etc/passwd",
      "/%2f%2fetc/passwd",
      "/%2fetc/passwd",
      "/link/secret.txt",
      "/secret-link.txt",
      "/..\\secret.txt",
      "/%5c..%5csecret.txt",
      "/%00index.html",
      "/.%2e/secret.txt",
      "/%",
      "/%zz",
      "/./../secret.txt",
      "/js/./../../secret.txt",
  };
  for (const char* target : attacks) {
    INFO(target);
    const std::string reply = arena::test::raw_exchange(
        port, fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", target));
    CHECK(reply.find("TOPSECRET") == std::string::npos);
    CHECK(reply.find("root:") == std::string::npos);
    const bool refused = reply.starts_with("HTTP/1.1 400") || reply.starts_with("HTTP/1.1 403") ||
                         reply.starts_with("HTTP/1.1 404");
    CHECK(refused);
  }
  // The same files are fine through a path inside the folder.
  CHECK(arena::test::http_get(port, "/js/app.js").status == 200);
  CHECK(arena::test::http_get(port, "/js/%61pp.js").status == 200);
}

TEST_CASE("body and header limits, header and idle timeouts", "[server]") {
  AssetTree tree;
  ServerOptions options;
  options.limits.max_body_bytes = 1000;
  options.limits.header_timeout = std::chrono::milliseconds(300);
  options.limits.idle_timeout = std::chrono::milliseconds(600);
  auto server = start(tree.root, options);
  const uint16_t port = server->port();
  CHECK(arena::test::http_post(port, "/api/games", std::string(5000, 'x')).status == 413);
  const std::string big_header =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n";
  CHECK(arena::test::raw_exchange(port, big_header).starts_with("HTTP/1.1 431"));
  // A request that never completes is cut off after the header timeout, not left open.
  const auto t0 = std::chrono::steady_clock::now();
  const std::string partial = arena::test::raw_exchange(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(partial.empty());
  CHECK(waited < 3.0);
  // An idle connection is closed after the idle timeout.
  const auto t1 = std::chrono::steady_clock::now();
  CHECK(arena::test::raw_exchange(port, "").empty());
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() < 3.0);
  CHECK(eventually([&] { return server->num_connections() == 0; }));
}
