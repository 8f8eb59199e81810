// Who may talk to the board server and `arena serve` (docs/security.md): the rules a browser tab
// on another site cannot get around.
//  - DNS rebinding: a request's Host must name this server: its bind address, on a loopback bind
//    also localhost / 127.0.0.1 / [::1], on a wildcard bind (0.0.0.0, ::) any IP literal (a
//    rebinding attack needs a DNS name), or a configured name. Otherwise 421. The port in Host is
//    not compared: the browser sent it to our port whatever the name. An HTTP/1.1 request without
//    Host, or with two, is malformed (400, RFC 9112 §3.2); HTTP/1.0 without Host is served (no
//    browser sends that, so no page can be behind it).
//  - Cross-site requests: a WebSocket upgrade, or any method but GET / HEAD, whose Origin is
//    present and foreign gets 403. An origin is ours when it is the Host the request came to
//    (same origin, as a browser behind a reverse proxy sends it), a configured origin, or one of
//    our own names (not "any IP" of a wildcard bind) on the bound port. No Origin: not a browser
//    page, allowed.
//  - The API key (arena serve --api-key): `Authorization: Bearer KEY` on /v1 only, compared in
//    constant time; 401 with WWW-Authenticate otherwise. /health, /metrics, the dashboard and /ws
//    are read-only and stay open, as in vLLM.
// Beast-free, so that the rules are tested without sockets; the HTTP session applies them to every
// request before routing it or upgrading it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/server/http_types.h"

namespace arena::server {

struct AccessRules {
  std::string bind;                          // the address bound: "127.0.0.1", "0.0.0.0", "::1", ...
  uint16_t port = 0;                         // the port bound
  std::vector<std::string> allowed_hosts;    // more names for Host (config::check_allowed_host's form)
  std::vector<std::string> allowed_origins;  // more origins (config::check_allowed_origin's form)
  std::string api_key;                       // required on /v1 ("" = none)
};

class AccessPolicy {
 public:
  explicit AccessPolicy(AccessRules rules);

  // Why `request` is not served (400, 421, 403 or 401, with a body saying how to allow it), or
  // nullopt. `upgrade`: it asks for a WebSocket.
  std::optional<HttpResponse> refusal(const HttpRequest& request, bool upgrade) const;

  // Whether a Host header value ("name[:port]") names this server.
  bool host_allowed(std::string_view host) const;
  // Whether a page of `origin` may open /ws or POST, for a request that came with `host`.
  bool origin_allowed(std::string_view origin, std::string_view host) const;

 private:
  // Whether `name` (lower-case, IPv6 in brackets, no port) is one of ours; `any_ip`: on a
  // wildcard bind, every IP literal counts.
  bool own_name(const std::string& name, bool any_ip) const;
  std::optional<HttpResponse> check_host(const HttpRequest& request) const;
  std::optional<HttpResponse> check_key(const HttpRequest& request) const;

  AccessRules rules_;
  std::string bind_name_;  // the bind address as a Host names it (IPv6 in brackets)
  bool loopback_ = false, wildcard_ = false;
};

// Whether `address` (an IP literal) is a loopback address (127.0.0.0/8, ::1).
bool is_loopback_address(std::string_view address);
// Whether `address` is the wildcard address (0.0.0.0, ::).
bool is_wildcard_address(std::string_view address);

// What `arena serve` says when it would serve /v1 beyond this machine without a key: bound to a
// non-loopback `host` with no `api_key` and no `allow_unauthenticated`. nullopt when it may start.
std::optional<std::string> exposure_refusal(std::string_view host, bool has_api_key,
                                            bool allow_unauthenticated);

}  // namespace arena::server
