// AccessPolicy: the Host, Origin and API-key rules of access_policy.h.
#include "arena/server/access_policy.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>

#include "arena/config/web_names.h"
#include "arena/server/constant_time.h"
#include "arena/server/openai_api.h"
#include "base/strings.h"

namespace arena::server {

namespace {

// "name[:port]" (a Host header, an origin's authority) split; nullopt when malformed. The name is
// lower-case, an IPv6 address keeps its brackets; port 0 when none is given.
struct Authority {
  std::string name;
  uint32_t port = 0;
};
std::optional<Authority> parse_authority(std::string_view text) {
  Authority out;
  std::string_view name = text;
  const size_t colon = text.rfind(':'), bracket = text.rfind(']');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    const std::string_view port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    for (char c : port) out.port = out.port * 10 + static_cast<uint32_t>(c - '0');
    if (out.port > 65535) return std::nullopt;
    name = text.substr(0, colon);
  }
  const config::NameCheck checked = config::check_allowed_host(name);
  if (checked.error) return std::nullopt;
  out.name = checked.normalised;
  return out;
}

bool is_ip_literal(const std::string& name) {
  in_addr v4{};
  in6_addr v6{};
  if (name.size() > 2 && name.front() == '[')
    return ::inet_pton(AF_INET6, name.substr(1, name.size() - 2).c_str(), &v6) == 1;
  return ::inet_pton(AF_INET, name.c_str(), &v4) == 1;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

bool is_loopback_address(std::string_view address) {
  in_addr v4{};
  in6_addr v6{};
  const std::string a(address);
  if (::inet_pton(AF_INET, a.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return ::inet_pton(AF_INET6, a.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool is_wildcard_address(std::string_view address) {
  in_addr v4{};
  in6_addr v6{};
  const std::string a(address);
  if (::inet_pton(AF_INET, a.c_str(), &v4) == 1) return v4.s_addr == INADDR_ANY;
  return ::inet_pton(AF_INET6, a.c_str(), &v6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&v6);
}

AccessPolicy::AccessPolicy(AccessRules rules) : rules_(std::move(rules)) {
  // Callers pass the checked forms (config/web_names.h); lower-case them all the same.
  for (auto& h : rules_.allowed_hosts) h = base::to_lower(h);
  for (auto& o : rules_.allowed_origins) o = base::to_lower(o.ends_with('/') ? o.substr(0, o.size() - 1) : o);
  bind_name_ =
      base::to_lower(rules_.bind.find(':') != std::string::npos ? "[" + rules_.bind + "]" : rules_.bind);
  loopback_ = is_loopback_address(rules_.bind);
  wildcard_ = is_wildcard_address(rules_.bind);
}

bool AccessPolicy::own_name(const std::string& name, bool any_ip) const {
  if (contains(rules_.allowed_hosts, name)) return true;
  // A wildcard bind listens on the loopback addresses too.
  if ((loopback_ || wildcard_) && (name == "localhost" || name == "127.0.0.1" || name == "[::1]"))
    return true;
  if (wildcard_) return any_ip && is_ip_literal(name);
  return name == bind_name_;
}

bool AccessPolicy::host_allowed(std::string_view host) const {
  const auto authority = parse_authority(host);
  return authority && own_name(authority->name, /*any_ip=*/true);
}

bool AccessPolicy::origin_allowed(std::string_view origin, std::string_view host) const {
  const config::NameCheck checked = config::check_allowed_origin(origin);
  if (checked.error) return false;  // "null" (a sandboxed frame, a file), another scheme
  if (contains(rules_.allowed_origins, checked.normalised)) return true;
  const bool https = checked.normalised.starts_with("https://");
  const std::string authority = checked.normalised.substr(https ? 8 : 7);
  // The page came from the very address this request is sent to (a reverse proxy's name too).
  if (!host.empty() && authority == base::to_lower(host)) return true;
  const auto parsed = parse_authority(authority);
  if (!parsed) return false;
  const uint32_t port = parsed->port != 0 ? parsed->port : (https ? 443 : 80);
  return port == rules_.port && own_name(parsed->name, /*any_ip=*/false);
}

std::optional<HttpResponse> AccessPolicy::check_host(const HttpRequest& request) const {
  const auto hosts = std::count_if(request.headers.begin(), request.headers.end(),
                                   [](const auto& h) { return h.first == "host"; });
  if (hosts > 1) return json_error(400, "the request has more than one Host header");
  if (hosts == 0) {
    if (request.version >= 11) return json_error(400, "an HTTP/1.1 request needs a Host header");
    return std::nullopt;
  }
  const std::string host = request.header("host");
  if (host_allowed(host)) return std::nullopt;
  return json_error(421, fmt::format("this server does not answer to the name in Host ('{}'): it answers to "
                                     "the address it is bound to ({}){}; to serve it under another name, "
                                     "allow it with --allowed-host NAME (arena serve, arena run) or "
                                     "web.allowed_hosts in the config (docs/security.md)",
                                     host, rules_.bind, loopback_ ? " and localhost" : ""));
}

std::optional<HttpResponse> AccessPolicy::check_key(const HttpRequest& request) const {
  if (rules_.api_key.empty() || !(request.path == "/v1" || request.path.starts_with("/v1/")))
    return std::nullopt;
  const std::string auth = request.header("authorization");
  // RFC 7235: the scheme is case-insensitive.
  const bool bearer = auth.size() > 7 && base::to_lower(auth.substr(0, 7)) == "bearer ";
  if (bearer && constant_time_equal(std::string_view(auth).substr(7), rules_.api_key)) return std::nullopt;
  HttpResponse r = openai_error(401,
                                bearer ? "the API key is not valid"
                                       : "this server needs an API key: send `Authorization: Bearer KEY` "
                                         "with the key given to arena serve (--api-key or ARENA_API_KEY)",
                                "invalid_request_error");
  r.headers.emplace_back("WWW-Authenticate", "Bearer");
  return r;
}

std::optional<HttpResponse> AccessPolicy::refusal(const HttpRequest& request, bool upgrade) const {
  if (auto refused = check_host(request)) return refused;
  const std::string origin = request.header("origin");
  const bool state_changing = upgrade || (request.method != "GET" && request.method != "HEAD");
  if (state_changing && !origin.empty() && !origin_allowed(origin, request.header("host")))
    return json_error(
        403, fmt::format("a page of {} may not {} this server; to allow it, start with "
                         "--allowed-origin {} or add it to web.allowed_origins (docs/security.md)",
                         origin, upgrade ? "open a WebSocket to" : "send " + request.method + " requests to",
                         origin));
  return check_key(request);
}

std::optional<std::string> exposure_refusal(std::string_view host, bool has_api_key,
                                            bool allow_unauthenticated) {
  if (has_api_key || allow_unauthenticated || is_loopback_address(host)) return std::nullopt;
  return fmt::format(
      "--host {} serves the API to other machines, and no API key is set: give one with --api-key KEY "
      "(or the environment variable ARENA_API_KEY), or pass --allow-unauthenticated to serve it open anyway",
      host);
}

}  // namespace arena::server
