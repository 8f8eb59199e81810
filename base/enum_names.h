// Enums spelled by name (as the YAML config, the event log and messages spell them): one table
// per enum, an array of {value, name}, gives both directions through the generic functions here,
// so a name is written once and to_string and parsing cannot drift apart.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace base {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E, size_t N>
using EnumTable = std::array<EnumName<E>, N>;

// The name of `value` in `table`; "?" for a value the table lacks (a cast from a bad integer).
template <typename E, size_t N>
constexpr const char* enum_name(const EnumTable<E, N>& table, E value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

// The value whose name is `name`, or nullopt.
template <typename E, size_t N>
constexpr std::optional<E> enum_value(const EnumTable<E, N>& table, std::string_view name) {
  for (const auto& entry : table)
    if (name == entry.name) return entry.value;
  return std::nullopt;
}

// Every name in the table's order (for "expected one of ..." messages).
template <typename E, size_t N>
std::vector<std::string> enum_names(const EnumTable<E, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

}  // namespace base
