// The access rules over real sockets (docs/security.md): a rebinding Host gets 421, a WebSocket
// upgrade from a foreign page 403 (and the board view's own origin is let through), a cross-site
// POST 403, HTTP/1.0 without Host served, /v1 behind the API key with /health and /metrics open;
// and the web section of the config (allowed hosts and origins checked, normalised, resolved).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "arena/config/loader.h"
#include "arena/config/resolved.h"
#include "arena/server/board_server.h"
#include "tests/server/http_client.h"

namespace fs = std::filesystem;
using arena::server::BoardServer;
using arena::server::ServerOptions;

namespace {

// Answers every /v1 request with 200 {"ok":true}: the key check happens before it.
class OkApi final : public arena::server::ApiHandler {
 public:
  arena::server::RouteResult handle(const arena::server::HttpRequest&) override {
    return {arena::server::json_response(R"({"ok":true})"), nullptr};
  }
};

std::unique_ptr<BoardServer> start(arena::config::WebConfig web, ServerOptions options = {}) {
  web.port = 0;
  auto server = BoardServer::start(web, "", {}, std::move(options));
  REQUIRE(server.has_value());
  return std::move(*server);
}

// The status code of a raw HTTP reply ("HTTP/1.1 421 ..." -> 421), or 0.
int status_of(const std::string& reply) {
  if (!reply.starts_with("HTTP/1.") || reply.size() < 12) return 0;
  return std::stoi(reply.substr(9, 3));
}

std::string upgrade_request(uint16_t port, const std::string& origin) {
  return fmt::format(
      "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{}\r\n",
      port, origin.empty() ? "" : "Origin: " + origin + "\r\n");
}

}  // namespace

TEST_CASE("a Host that is not the server's name gets 421 over the socket", "[server][access]") {
  auto server = start({});
  const uint16_t port = server->port();
  const auto get = [&](const std::string& head) {
    return arena::test::raw_exchange(port, "GET /health " + head + "Connection: close\r\n\r\n");
  };
  const std::string rebound = get("HTTP/1.1\r\nHost: attacker.example:" + std::to_string(port) + "\r\n");
  CHECK(status_of(rebound) == 421);
  CHECK(rebound.find("--allowed-host") != std::string::npos);
  CHECK(status_of(get(fmt::format("HTTP/1.1\r\nHost: localhost:{}\r\n", port))) == 200);
  CHECK(status_of(get("HTTP/1.1\r\n")) == 400);  // HTTP/1.1 needs a Host
  CHECK(status_of(get("HTTP/1.0\r\n")) == 200);  // HTTP/1.0 without one is no browser
  CHECK(arena::test::http_get(port, "/health").status == 200);
}

TEST_CASE("configured names are answered; the loopback names are not on another bind", "[server][access]") {
  arena::config::WebConfig web;
  web.allowed_hosts = {"arena.example.com"};
  auto server = start(web);
  const auto get = [&](const std::string& host) {
    return status_of(arena::test::raw_exchange(
        server->port(), "GET /health HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"));
  };
  CHECK(get("arena.example.com") == 200);
  CHECK(get("Arena.Example.COM:443") == 200);
  CHECK(get("other.example.com") == 421);
}

TEST_CASE("a WebSocket upgrade from a foreign page is refused, the board view's own is accepted",
          "[server][access]") {
  arena::config::WebConfig web;
  web.allowed_origins = {"https://dash.example.org"};
  auto server = start(web);
  const uint16_t port = server->port();
  const auto handshake = [&](const std::string& origin) {
    return status_of(
        arena::test::raw_exchange(port, upgrade_request(port, origin), std::chrono::milliseconds(500)));
  };
  CHECK(handshake("http://evil.example") == 403);
  CHECK(handshake("null") == 403);
  CHECK(handshake(fmt::format("http://127.0.0.1:{}", port + 1)) == 403);  // another local app
  CHECK(handshake(fmt::format("http://127.0.0.1:{}", port)) == 101);
  CHECK(handshake(fmt::format("http://localhost:{}", port)) == 101);
  CHECK(handshake("https://dash.example.org") == 101);
  CHECK(handshake("") == 101);  // no Origin: not a browser
  const std::string refused = arena::test::raw_exchange(port, upgrade_request(port, "http://evil.example"),
                                                        std::chrono::milliseconds(500));
  CHECK(refused.find("--allowed-origin http://evil.example") != std::string::npos);
}

TEST_CASE("/v1 needs the API key; a cross-site POST is refused; health and metrics stay open",
          "[server][access]") {
  ServerOptions options;
  options.api = std::make_shared<OkApi>();
  options.api_key = "sk-test-key";
  auto server = start({}, options);
  const uint16_t port = server->port();
  const auto post = [&](const std::string& extra) {
    return arena::test::raw_exchange(
        port, "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                  extra + "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
  };
  const std::string anonymous = post("");
  CHECK(status_of(anonymous) == 401);
  CHECK(anonymous.find("WWW-Authenticate: Bearer") != std::string::npos);
  CHECK(anonymous.find("\"invalid_request_error\"") != std::string::npos);
  CHECK(status_of(post("Authorization: Bearer sk-test-ke\r\n")) == 401);
  CHECK(status_of(post("Authorization: Bearer sk-test-key\r\n")) == 200);
  // A page of another site cannot make the engine work, even with the key (it would not have it).
  CHECK(status_of(post("Authorization: Bearer sk-test-key\r\nOrigin: http://evil.example\r\n")) == 403);
  CHECK(arena::test::http_get(port, "/health").status == 200);
  CHECK(arena::test::http_get(port, "/metrics").status == 200);
  CHECK(arena::test::http_get(port, "/v1/models").status == 401);
}

TEST_CASE("web.allowed_hosts and web.allowed_origins are checked, normalised and resolved",
          "[server][access]") {
  constexpr const char* kAgents = "agents: [{name: a, type: random}, {name: b, type: random}]\n";
  arena::config::LoadOptions options;
  options.check_files = false;
  auto good = arena::config::load_config_from_string(
      std::string(kAgents) +
          "web:\n  allowed_hosts: [Arena.Example.com, '[FD00::1]', 10.0.0.2]\n"
          "  allowed_origins: https://Arena.Example.com/\n",
      "web.yaml", options);
  REQUIRE(good.has_value());
  CHECK(good->web.allowed_hosts == std::vector<std::string>{"arena.example.com", "[fd00::1]", "10.0.0.2"});
  CHECK(good->web.allowed_origins == std::vector<std::string>{"https://arena.example.com"});
  const std::string resolved = arena::config::resolved_yaml(*good);
  CHECK(resolved.find("arena.example.com") != std::string::npos);
  auto again = arena::config::load_config_from_string(resolved, "resolved.yaml", options);
  REQUIRE(again.has_value());
  CHECK(again->web.allowed_hosts == good->web.allowed_hosts);
  CHECK(again->web.allowed_origins == good->web.allowed_origins);

  auto bad = arena::config::load_config_from_string(
      std::string(kAgents) +
          "web:\n  allowed_hosts: [ok.example, 'http://x.example', 'x.example:8080', 'a b']\n"
          "  allowed_origins: [x.example, 'ftp://x.example', 'https://x.example/path']\n",
      "bad.yaml", options);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().size() == 6);
  for (const auto& e : bad.error()) CHECK((e.mark.line == 3 || e.mark.line == 4));

  options.overrides.allowed_hosts = {"Proxy.Example", "bad/name"};
  options.overrides.allowed_origins = {"https://proxy.example"};
  auto flagged = arena::config::load_config_from_string(kAgents, "flags.yaml", options);
  REQUIRE_FALSE(flagged.has_value());
  REQUIRE(flagged.error().size() == 1);
  CHECK(flagged.error()[0].to_string().find("--allowed-host") != std::string::npos);
  options.overrides.allowed_hosts = {"Proxy.Example"};
  flagged = arena::config::load_config_from_string(kAgents, "flags.yaml", options);
  REQUIRE(flagged.has_value());
  CHECK(flagged->web.allowed_hosts == std::vector<std::string>{"proxy.example"});
  CHECK(flagged->web.allowed_origins == std::vector<std::string>{"https://proxy.example"});
}
