// The access rules without sockets (arena/server/access_policy.h): which Host names a server
// answers on each kind of bind, which Origins may open /ws or POST, the API key on /v1 only,
// the constant-time comparison, and the start-up refusal of an open API beyond loopback.
#include "arena/server/access_policy.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "arena/server/constant_time.h"

using arena::server::AccessPolicy;
using arena::server::AccessRules;
using arena::server::HttpRequest;

namespace {

AccessPolicy policy(const std::string& bind, std::vector<std::string> hosts = {},
                    std::vector<std::string> origins = {}, std::string key = {}) {
  return AccessPolicy(AccessRules{bind, 8080, std::move(hosts), std::move(origins), std::move(key)});
}

HttpRequest request(std::string method, std::string path,
                    std::vector<std::pair<std::string, std::string>> headers) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = r.target = std::move(path);
  r.headers = std::move(headers);
  return r;
}

// The status `p` refuses the request with, or 0 when it is served.
int status(const AccessPolicy& p, const HttpRequest& r, bool upgrade = false) {
  const auto refused = p.refusal(r, upgrade);
  return refused ? refused->status : 0;
}

}  // namespace

TEST_CASE("a loopback bind answers its address and the loopback names only", "[server][access]") {
  const AccessPolicy p = policy("127.0.0.1");
  for (const char* host :
       {"127.0.0.1", "127.0.0.1:8080", "localhost", "LocalHost:8080", "[::1]:8080", "[::1]"})
    CHECK(p.host_allowed(host));
  // A rebinding attacker's name, other addresses, malformed values.
  for (const char* host : {"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.2",
                           "10.0.0.1", "", ":8080", "127.0.0.1:", "127.0.0.1:99999", "127.0.0.1:80a",
                           "user@127.0.0.1", "127.0.0.1/x", "[::1", "localhost."})
    CHECK_FALSE(p.host_allowed(host));
}

TEST_CASE("a wildcard bind answers any IP literal and configured names, never other names",
          "[server][access]") {
  for (const char* bind : {"0.0.0.0", "::"}) {
    const AccessPolicy p = policy(bind, {"arena.example.com"});
    for (const char* host : {"192.168.1.20:8080", "10.0.0.1", "[fd00::1]:8080", "localhost",
                             "arena.example.com", "ARENA.example.com:443"})
      CHECK(p.host_allowed(host));
    for (const char* host : {"evil.example", "arena.example.com.evil.example", "example.com", "1.2.3"})
      CHECK_FALSE(p.host_allowed(host));
  }
}

TEST_CASE("a bind to one address answers that address and configured names", "[server][access]") {
  const AccessPolicy p = policy("192.168.1.20", {"box.lan"});
  CHECK(p.host_allowed("192.168.1.20:8080"));
  CHECK(p.host_allowed("box.lan"));
  CHECK_FALSE(p.host_allowed("localhost"));  // not bound to loopback
  CHECK_FALSE(p.host_allowed("192.168.1.21"));
  const AccessPolicy v6 = policy("fd00::5");
  CHECK(v6.host_allowed("[fd00::5]:8080"));
  CHECK(v6.host_allowed("[FD00::5]"));
  CHECK_FALSE(v6.host_allowed("fd00::5"));
}

TEST_CASE("a foreign Host is 421 with how to allow it; a missing one is 400 on HTTP/1.1 only",
          "[server][access]") {
  const AccessPolicy p = policy("127.0.0.1");
  const auto refused = p.refusal(request("GET", "/api/games", {{"host", "attacker.example:8080"}}), false);
  REQUIRE(refused);
  CHECK(refused->status == 421);
  CHECK(refused->body.find("--allowed-host") != std::string::npos);
  CHECK(refused->body.find("web.allowed_hosts") != std::string::npos);
  CHECK(status(p, request("GET", "/", {{"host", "127.0.0.1:8080"}})) == 0);

  HttpRequest no_host = request("GET", "/", {});
  CHECK(status(p, no_host) == 400);
  no_host.version = 10;
  CHECK(status(p, no_host) == 0);  // HTTP/1.0 without Host: no browser sends that
  CHECK(status(p, request("GET", "/", {{"host", "127.0.0.1"}, {"host", "evil.example"}})) == 400);
}

TEST_CASE("WebSocket upgrades and POSTs need the server's own origin, or none", "[server][access]") {
  const AccessPolicy p = policy("127.0.0.1", {}, {"https://dash.example.org"});
  const auto with_origin = [](std::string method, std::string origin) {
    return request(std::move(method), "/ws", {{"host", "127.0.0.1:8080"}, {"origin", std::move(origin)}});
  };
  CHECK(status(p, with_origin("GET", "http://127.0.0.1:8080"), true) == 0);  // the board view itself
  CHECK(status(p, with_origin("GET", "http://localhost:8080"), true) == 0);  // our name, our port
  CHECK(status(p, with_origin("GET", "https://dash.example.org"), true) == 0);
  CHECK(status(p, with_origin("GET", "https://DASH.example.org/"), true) == 0);
  CHECK(status(p, request("GET", "/ws", {{"host", "127.0.0.1:8080"}}), true) == 0);  // no Origin: no browser
  for (const char* origin :
       {"http://evil.example", "http://127.0.0.1:3000", "http://localhost", "null",
        "https://dash.example.org:8443", "file://", "http://127.0.0.1:8080.evil.example"})
    CHECK(status(p, with_origin("GET", origin), true) == 403);
  // A "simple" cross-site POST (a form, fetch no-cors) is refused; a GET is not state-changing.
  const auto post =
      request("POST", "/v1/completions", {{"host", "127.0.0.1:8080"}, {"origin", "http://evil.example"}});
  const auto refused = p.refusal(post, false);
  REQUIRE(refused);
  CHECK(refused->status == 403);
  CHECK(refused->body.find("--allowed-origin http://evil.example") != std::string::npos);
  CHECK(status(p, with_origin("GET", "http://evil.example"), false) == 0);
  CHECK(status(p, with_origin("POST", "http://127.0.0.1:8080"), false) == 0);
}

TEST_CASE("behind a reverse proxy the origin matches the forwarded Host", "[server][access]") {
  const AccessPolicy p = policy("127.0.0.1", {"arena.example.com"});
  const auto upgrade = [&](std::string host, std::string origin) {
    return status(p, request("GET", "/ws", {{"host", std::move(host)}, {"origin", std::move(origin)}}), true);
  };
  CHECK(upgrade("arena.example.com", "https://arena.example.com") == 0);
  CHECK(upgrade("arena.example.com:8443", "https://arena.example.com:8443") == 0);
  CHECK(upgrade("arena.example.com", "https://evil.example") == 403);
  CHECK(upgrade("evil.example", "https://evil.example") == 421);  // a rebinding name fails on Host first
  // A wildcard bind accepts any IP as Host, but an IP origin only when it is that Host.
  const AccessPolicy any = policy("0.0.0.0");
  CHECK(any.origin_allowed("http://10.0.0.9:8080", "10.0.0.9:8080"));
  CHECK_FALSE(any.origin_allowed("http://10.0.0.9:8080", "127.0.0.1:8080"));
  CHECK(any.origin_allowed("http://localhost:8080", "127.0.0.1:8080"));
}

TEST_CASE("the API key guards /v1 only, as a Bearer token", "[server][access]") {
  const AccessPolicy p = policy("127.0.0.1", {}, {}, "sk-secret-123");
  const auto v1 = [](std::string path, std::string auth) {
    std::vector<std::pair<std::string, std::string>> headers = {{"host", "127.0.0.1"}};
    if (!auth.empty()) headers.emplace_back("authorization", std::move(auth));
    return request("POST", std::move(path), std::move(headers));
  };
  CHECK(status(p, v1("/v1/completions", "Bearer sk-secret-123")) == 0);
  CHECK(status(p, v1("/v1/models", "bearer sk-secret-123")) == 0);  // the scheme is case-insensitive
  for (const char* auth : {"", "Bearer sk-secret-12", "Bearer sk-secret-1234", "Bearer ",
                           "Basic c2stc2VjcmV0", "sk-secret-123", "Bearer SK-SECRET-123"})
    CHECK(status(p, v1("/v1/chat/completions", auth)) == 401);
  const auto refused = p.refusal(v1("/v1/completions", "Bearer wrong"), false);
  REQUIRE(refused);
  CHECK(refused->body.find("sk-secret") == std::string::npos);  // neither key is echoed
  CHECK(refused->body.find("wrong") == std::string::npos);
  const auto body = nlohmann::json::parse(refused->body);
  CHECK(body["error"]["type"] == "invalid_request_error");
  CHECK(body["error"]["code"] == 401);
  REQUIRE(refused->headers.size() == 1);
  CHECK(refused->headers[0] == std::pair<std::string, std::string>("WWW-Authenticate", "Bearer"));
  // Open: health, metrics, the dashboard and its REST API, the WebSocket.
  for (const char* path : {"/health", "/metrics", "/dashboard", "/api/tournament", "/ws", "/v1x"})
    CHECK(status(p, request("GET", path, {{"host", "127.0.0.1"}})) == 0);
  // No key configured: /v1 is open.
  CHECK(status(policy("127.0.0.1"), v1("/v1/completions", "")) == 0);
}

TEST_CASE("constant_time_equal compares whole strings", "[server][access]") {
  using arena::server::constant_time_equal;
  CHECK(constant_time_equal("abc", "abc"));
  CHECK(constant_time_equal("", ""));
  CHECK_FALSE(constant_time_equal("abd", "abc"));
  CHECK_FALSE(constant_time_equal("xbc", "abc"));
  CHECK_FALSE(constant_time_equal("ab", "abc"));
  CHECK_FALSE(constant_time_equal("abcabc", "abc"));  // the secret repeated is not the secret
  CHECK_FALSE(constant_time_equal("abcd", "abc"));
  CHECK_FALSE(constant_time_equal("", "abc"));
  CHECK_FALSE(constant_time_equal("abc", ""));
  CHECK(constant_time_equal(std::string_view("a\0c", 3), std::string_view("a\0c", 3)));
  CHECK_FALSE(constant_time_equal(std::string_view("a\0c", 3), std::string_view("a\0d", 3)));
}

TEST_CASE("serving /v1 beyond loopback without a key is refused unless allowed", "[server][access]") {
  using arena::server::exposure_refusal;
  CHECK_FALSE(exposure_refusal("127.0.0.1", false, false));
  CHECK_FALSE(exposure_refusal("::1", false, false));
  CHECK_FALSE(exposure_refusal("0.0.0.0", true, false));
  CHECK_FALSE(exposure_refusal("0.0.0.0", false, true));
  for (const char* host : {"0.0.0.0", "::", "192.168.1.20"}) {
    const auto refusal = exposure_refusal(host, false, false);
    REQUIRE(refusal);
    CHECK(refusal->find("--api-key") != std::string::npos);
    CHECK(refusal->find("--allow-unauthenticated") != std::string::npos);
  }
  CHECK(arena::server::is_loopback_address("127.3.4.5"));
  CHECK_FALSE(arena::server::is_loopback_address("128.0.0.1"));
  CHECK(arena::server::is_wildcard_address("::"));
  CHECK_FALSE(arena::server::is_wildcard_address("::1"));
}
