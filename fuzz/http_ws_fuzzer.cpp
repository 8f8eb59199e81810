// Fuzz target: the board server's handling of client bytes, without sockets. The first byte picks
// what the rest is:
//   0: an HTTP request, parsed by Beast's request_parser with the server's own limits
//      (ServerLimits: header and body bounds), converted as the session does (beast_request.h),
//      then routed (REST over a hub holding a small tournament, /metrics, /health, pages and the
//      static assets of a folder made here);
//   1: WebSocket text messages (NUL-separated, at most 8, each at most the server's message
//      limit) from one client, as the hub handles them (subscribe / resync / ping);
//   2: tournament events (NUL-separated JSON) ingested by a fresh hub, then every REST view of it;
//   3: a URL path given to the static file server directly.
// Properties: a parsed request's path and query are its target split at '?', header names are
// lower-case and the body is within the limit; no route answers 500 (a handler that threw) and a
// JSON response is valid JSON; a static file served is always one inside the asset folder (the
// folder holds symlinks and a sibling file outside it, which must never be served); every client
// message gets exactly one reply, a JSON object: a snapshot whose seq follows the client's last,
// the view asked for, or an error with a message, or a pong.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "arena/server/beast_request.h"
#include "arena/server/board_server.h"
#include "arena/server/hub.h"
#include "arena/server/router.h"
#include "arena/server/static_files.h"
#include "fuzz/fuzz_check.h"
#include "games/game.h"

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
using arena::server::Hub;
using arena::server::HubClient;
using nlohmann::json;

const arena::server::ServerLimits kLimits;
constexpr size_t kMaxMessages = 8;
// The content of the file outside the asset folder. Only static-file answers are checked for it:
// libFuzzer learns the word from the comparison and writes it into inputs, which the REST views
// (a game's start FEN, a 404 quoting an /api path) rightly echo back.
constexpr std::string_view kSecret = "SECRET";

// The asset folder: pages and a nested file, each holding "INSIDE:<name>"; symlinks leading out
// of it (to a sibling file and to the parent folder); the sibling "secret" outside.
struct Assets {
  fs::path base, root;
  Assets() {
    char tmpl[] = "/tmp/arena-http-fuzz-XXXXXX";
    FUZZ_CHECK(mkdtemp(tmpl) != nullptr);
    base = tmpl;
    root = base / "web";
    fs::create_directories(root / "css");
    for (const char* name : {"index.html", "game.html", "dashboard.html", "css/app.css", "app.js"})
      std::ofstream(root / name) << "INSIDE:" << name;
    std::ofstream(base / "secret.txt") << kSecret;
    fs::create_symlink(base / "secret.txt", root / "out.txt");
    fs::create_symlink(base, root / "up");
    fs::create_symlink("../secret.txt", root / "css" / "rel.txt");
  }
  ~Assets() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
};

const Assets& assets() {
  static const Assets a;
  return a;
}

// Events of a small tournament: one chess game in flight with 3 moves, one janggi game over.
std::vector<json> tournament_events() {
  std::vector<json> out;
  double time = 1e9;
  auto base = [&](const char* type) {
    return json{{"seq", out.size() + 1}, {"time", time += 1}, {"type", type}};
  };
  json t = base("tournament_start");
  t.update({{"config_hash", "0123456789abcdef"},
            {"seed", 1},
            {"variants", {"chess", "janggi"}},
            {"agents", {"alpha", "beta"}},
            {"num_games", 2}});
  out.push_back(t);
  int index = 0;
  for (const char* variant : {"chess", "janggi"}) {
    auto game = games::make_game(variant);
    FUZZ_CHECK(game.has_value());
    const std::string id = fmt::format("g{:04}", ++index);
    json start = base("game_start");
    start.update({{"game", id},
                  {"index", index},
                  {"variant", variant},
                  {"first", "alpha"},
                  {"second", "beta"},
                  {"start_fen", (*game)->fen()},
                  {"opening", ""},
                  {"clock_ms", {60000, 60000}}});
    out.push_back(start);
    for (int ply = 0; ply < 3; ++ply) {
      const auto legal = (*game)->legal_moves();
      const std::string uci = legal[(ply * 7) % legal.size()];
      const std::string human = *(*game)->to_human(uci);
      FUZZ_CHECK((*game)->apply(uci).has_value());
      json move = base("move");
      move.update({{"game", id},
                   {"ply", ply + 1},
                   {"uci", uci},
                   {"human", human},
                   {"fen", (*game)->fen()},
                   {"agent", ply % 2 ? "beta" : "alpha"},
                   {"raw", "I play " + uci},
                   {"score_cp", 10 * ply}});
      out.push_back(move);
    }
    if (index == 2) {
      json end = base("game_end");
      end.update({{"game", id}, {"result", "1-0"}, {"reason", "resignation"}});
      out.push_back(end);
    }
  }
  json standings = base("standings");
  standings["rows"] = json::array({{{"agent", "alpha"}, {"points", 1}}, {{"agent", "beta"}, {"points", 0}}});
  out.push_back(standings);
  return out;
}

Hub& shared_hub() {
  static Hub* hub = [] {
    auto* h = new Hub([](std::function<void()> f) { f(); });
    for (auto& e : tournament_events()) h->ingest(arena::tournament::parse_event(e).value());
    return h;
  }();
  return *hub;
}

// A WebSocket client as the hub sees it: keeps every message, parsed.
class Client final : public HubClient {
 public:
  bool deliver(std::shared_ptr<const std::string> message, bool) override {
    const json j = json::parse(*message, nullptr, false);
    FUZZ_CHECK(!j.is_discarded() && j.is_object() && j.contains("type") && j["type"].is_string());
    received.push_back(j);
    return true;
  }
  std::vector<json> received;
};

std::vector<std::string_view> split_nul(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find('\0', start);
    parts.push_back(text.substr(start, end == text.npos ? text.npos : end - start));
    if (end == text.npos) return parts;
    start = end + 1;
  }
}

// A response of a route: not an internal error, valid JSON when it says it is JSON, and for a
// static file, one of the asset folder's own.
void check_response(const arena::server::HttpResponse& r, bool from_assets) {
  if (r.status == 500) std::fprintf(stderr, "500: %s\n", r.body.c_str());
  FUZZ_CHECK(r.status != 500);
  FUZZ_CHECK(r.status >= 200 && r.status < 600);
  if (r.content_type == "application/json") FUZZ_CHECK(json::accept(r.body));
  if (from_assets) FUZZ_CHECK(r.body.find(kSecret) == r.body.npos);
  if (from_assets && r.status == 200) FUZZ_CHECK(r.body.starts_with("INSIDE:"));
}

void fuzz_http(std::string_view bytes) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(kLimits.max_body_bytes);
  parser.header_limit(static_cast<std::uint32_t>(kLimits.max_header_bytes));
  parser.eager(true);
  boost::beast::error_code ec;
  size_t used = 0;
  while (!parser.is_done() && used < bytes.size()) {
    const size_t n = parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    if (ec == http::error::need_more) break;
    if (ec) return;  // the session answers 400 / 413 / 431 and closes
    if (n == 0) break;
    used += n;
  }
  if (!parser.is_done()) {
    if (!parser.got_some()) return;  // nothing came: the session sees end_of_stream and closes
    parser.put_eof(ec);
    if (ec || !parser.is_done()) return;
  }
  auto req = parser.release();
  const std::string target(req.target());
  const auto request = arena::server::to_http_request(req);
  FUZZ_CHECK(request.target == target);
  const size_t q = target.find('?');
  FUZZ_CHECK(request.path == target.substr(0, q));
  FUZZ_CHECK(request.query == (q == target.npos ? "" : target.substr(q + 1)));
  FUZZ_CHECK(request.body.size() <= kLimits.max_body_bytes);
  for (const auto& [name, value] : request.headers)
    for (char c : name) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
  static arena::server::Router router(shared_hub(), arena::server::StaticFiles(assets().root), {}, nullptr);
  const auto result = router.route(request);
  FUZZ_CHECK(result.async == nullptr);  // no /v1 API here: every answer is immediate
  const std::string_view path = request.path;
  check_response(result.response, !path.starts_with("/api") && !path.starts_with("/v1") &&
                                      path != "/health" && path != "/metrics");
}

void fuzz_ws(std::string_view text) {
  Hub& hub = shared_hub();
  Client client;
  hub.join(&client);
  FUZZ_CHECK(client.received.size() == 1 && client.received[0]["type"] == "snapshot");
  int64_t seq = client.received[0]["seq"];
  // At most kMaxMessages per input: each reply is a snapshot of the whole hub (~2 ms under ASan),
  // and a longer conversation reaches no state a shorter one does not (a client's state is its
  // subscription and seq).
  const auto messages = split_nul(text);
  for (size_t i = 0; i < messages.size() && i < kMaxMessages; ++i) {
    const std::string_view message = messages[i];
    if (message.size() > kLimits.max_ws_message_bytes) continue;  // closed with 1009 before the hub
    const size_t before = client.received.size();
    hub.handle_message(&client, message);
    FUZZ_CHECK(client.received.size() == before + 1);
    const json& reply = client.received.back();
    const std::string type = reply["type"];
    if (type == "snapshot") {
      FUZZ_CHECK(reply.contains("seq") && reply["seq"].is_number_integer() && reply["seq"] == seq + 1);
      seq = reply["seq"];
      const json& snap = reply["snapshot"];
      FUZZ_CHECK(snap.is_object() && snap.contains("view") && snap["view"].is_string());
      const json asked = json::parse(message, nullptr, false);
      if (asked.is_object() && asked.value("type", json()) == "subscribe") {
        const json view = asked.value("view", json("overview"));
        if (view.is_string()) FUZZ_CHECK(snap["view"] == view);
        if (view == "game") FUZZ_CHECK(snap["game_id"] == asked["game"]);
      }
    } else if (type == "error") {
      FUZZ_CHECK(reply.contains("message") && reply["message"].is_string() &&
                 !reply["message"].get<std::string>().empty());
    } else {
      FUZZ_CHECK(type == "pong");
    }
  }
  hub.leave(&client);
}

void fuzz_events(std::string_view text) {
  Hub hub([](std::function<void()> f) { f(); });
  Client client;
  hub.join(&client);
  for (std::string_view line : split_nul(text)) {
    const json event = json::parse(line, nullptr, false);
    if (event.is_discarded()) continue;
    // The typed event, as the runner hands it over (JSON that is not one is refused here).
    const auto typed = arena::tournament::parse_event(event);
    if (!typed) continue;
    hub.on_event(*typed);  // as the runner's thread calls it (posted; exceptions are logged)
  }
  arena::server::Router router(hub, arena::server::StaticFiles(assets().root), {}, nullptr);
  std::vector<std::string> paths = {"/api/tournament", "/api/games", "/api/standings", "/api/metrics/history",
                                    "/metrics"};
  for (const json& g : hub.games_json()) {
    const std::string id = g.value("id", json("")).get<std::string>();
    paths.push_back("/api/games/" + id);
    paths.push_back("/api/games/" + id + ".pgn");
  }
  for (const std::string& path : paths) {
    arena::server::HttpRequest request;
    request.method = "GET";
    request.target = request.path = path;
    check_response(router.route(request).response, false);
  }
  for (const char* msg : {R"({"type":"subscribe","view":"dashboard"})", R"({"type":"resync"})"})
    hub.handle_message(&client, msg);
  hub.leave(&client);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // The hub logs the events it cannot use (and drops them): that is its contract, not a finding.
  static const bool quiet = (spdlog::set_level(spdlog::level::off), true);
  (void)quiet;
  const auto text = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      fuzz_http(text);
      break;
    case 1:
      fuzz_ws(text);
      break;
    case 2:
      fuzz_events(text);
      break;
    case 3:
      check_response(arena::server::StaticFiles(assets().root).serve(text), true);
      break;
  }
  return 0;
}
