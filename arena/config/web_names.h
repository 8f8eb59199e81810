// What the board server may be called: the host names (web.allowed_hosts, --allowed-host) and
// browser origins (web.allowed_origins, --allowed-origin) a user allows beyond the address the
// server is bound to. Checked once here, for the config and the command lines alike; the server
// (arena/server/access_policy.h) matches requests against the normalised forms.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace arena::config {

// `name` as an allowed host: a DNS name ("arena.example.com"), an IPv4 address, or an IPv6
// address in brackets ("[fd00::1]"); no scheme, port or path. Lower-cased; the error says what
// is wrong with it.
struct NameCheck {
  std::string normalised;
  std::optional<std::string> error;
};
NameCheck check_allowed_host(std::string_view name);

// `origin` as an allowed browser origin: "http://HOST[:PORT]" or "https://HOST[:PORT]" with HOST
// as above, no path (one trailing '/' is dropped). Lower-cased.
NameCheck check_allowed_origin(std::string_view origin);

}  // namespace arena::config
