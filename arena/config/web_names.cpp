// The checks of allowed host names and origins (see web_names.h).
#include "arena/config/web_names.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>

#include "base/strings.h"

namespace arena::config {

namespace {

// Why `host` (lower-case, without a port) is not a DNS name, IPv4 address or bracketed IPv6
// address; nullopt when it is one.
std::optional<std::string> host_error(const std::string& host) {
  if (host.empty()) return "it is empty";
  if (host.front() == '[') {
    in6_addr v6{};
    if (host.back() != ']' || ::inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &v6) != 1)
      return "it is not an IPv6 address in brackets";
    return std::nullopt;
  }
  if (host.find_first_of(":/@?#") != std::string::npos)
    return "give the name alone, without a scheme, port or path (e.g. arena.example.com)";
  const bool name_chars = std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
  });
  if (!name_chars || host.front() == '.' || host.front() == '-' || host.size() > 253)
    return "it is not a host name (letters, digits, '-', '_' and '.') or an IP address";
  return std::nullopt;
}

}  // namespace

NameCheck check_allowed_host(std::string_view name) {
  NameCheck out{base::to_lower(name), std::nullopt};
  if (auto why = host_error(out.normalised))
    out.error = fmt::format("'{}' cannot be an allowed host: {}", name, *why);
  return out;
}

NameCheck check_allowed_origin(std::string_view origin) {
  NameCheck out{base::to_lower(origin), std::nullopt};
  std::string& o = out.normalised;
  if (o.ends_with('/')) o.pop_back();
  const auto fail = [&](std::string_view why) {
    out.error =
        fmt::format("'{}' cannot be an allowed origin: {} (e.g. https://arena.example.com)", origin, why);
    return out;
  };
  const size_t sep = o.find("://");
  if (sep == std::string::npos || (o.substr(0, sep) != "http" && o.substr(0, sep) != "https"))
    return fail("it must start with http:// or https://");
  std::string authority = o.substr(sep + 3);
  if (authority.find('/') != std::string::npos) return fail("an origin has no path");
  // A port after the host (after the brackets of an IPv6 address).
  const size_t colon = authority.rfind(':'), bracket = authority.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    const std::string port = authority.substr(colon + 1);
    const bool digits = !port.empty() && port.size() <= 5 &&
                        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoi(port) < 1 || std::stoi(port) > 65535) return fail("its port is not 1-65535");
    authority.resize(colon);
  }
  if (auto why = host_error(authority)) return fail(*why);
  return out;
}

}  // namespace arena::config
