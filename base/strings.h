// base: the bottom layer, which every layer may include and which includes only itself. Tiny
// ASCII string helpers that would otherwise be written again in each layer: whitespace trimming,
// lower-casing and splitting (on one character, or into words).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace base {

// ASCII whitespace, as isspace() in the C locale: space, \t, \n, \v, \f, \r.
constexpr bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// `s` without leading and trailing ASCII whitespace (a view into `s`).
std::string_view trim(std::string_view s);

// `s` with ASCII letters lower-cased (other bytes, UTF-8 included, unchanged).
std::string to_lower(std::string_view s);

// The parts of `text` between `separator`s, empty ones included ("a,,b" -> "a", "", "b"; "" -> "").
std::vector<std::string_view> split(std::string_view text, char separator);

// The words of `text`: the non-empty parts between runs of ASCII whitespace (FEN and EPD fields).
std::vector<std::string_view> split_words(std::string_view text);

}  // namespace base
