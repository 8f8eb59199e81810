// Enums spelled by a table of names in declaration order (as the YAML config spells them): the
// agents' and the tournament's option enums.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace agents {

// The value of enum E whose name in `names` is `s`, or nullopt.
template <typename E, size_t N>
std::optional<E> parse_enum_name(const std::array<const char*, N>& names, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace agents
