// find_move: split into words, trim decorations, ask the game to parse each.
#include "agents/llm/answer_reader.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <optional>
#include <vector>

namespace agents::llm {

namespace {

bool is_separator(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0 || c == ',' || c == ';' || c == '!' || c == '?' ||
         c == '(' || c == ')' || c == '[' || c == ']' || c == '"' || c == '\'' || c == '`' || c == '*' ||
         c == '{' || c == '}' || c == '<' || c == '>' || c == '|';
}

// A word without a leading move number ("12." / "3...") and trailing '.' or ':'.
std::string_view trim_word(std::string_view w) {
  size_t digits = 0;
  while (digits < w.size() && std::isdigit(static_cast<unsigned char>(w[digits]))) ++digits;
  if (digits > 0 && digits < w.size() && w[digits] == '.') {
    size_t dots = digits;
    while (dots < w.size() && w[dots] == '.') ++dots;
    w.remove_prefix(dots);
  }
  while (!w.empty() && (w.back() == '.' || w.back() == ':')) w.remove_suffix(1);
  while (!w.empty() && (w.front() == '.' || w.front() == ':')) w.remove_prefix(1);
  return w;
}

// Whether a word could be meant as a move (it holds a digit, castling, or non-ASCII piece names).
bool looks_like_move(std::string_view w) {
  if (w.starts_with("O-O") || w.starts_with("0-0")) return true;
  for (char c : w)
    if (std::isdigit(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) return true;
  return false;
}

}  // namespace

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && len > 1) {  // no overlong forms, surrogates or code points past U+10FFFF
      uint32_t cp = c & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
      static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::expected<std::string, MoveFailure> find_move(const games::Game& game, std::string_view text) {
  std::optional<std::string> first_illegal;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_separator(text[i])) ++i;
    size_t end = i;
    while (end < text.size() && !is_separator(text[end])) ++end;
    const std::string_view word = trim_word(text.substr(i, end - i));
    i = end;
    if (word.empty() || word.size() > 16) continue;
    auto move = game.parse_move(word);
    if (move) return *move;
    if (!first_illegal && looks_like_move(word))
      first_illegal = fmt::format("'{}' is not a legal move: {}", word, move.error().message);
  }
  if (first_illegal) return std::unexpected(MoveFailure{FailureKind::Illegal, *first_illegal});
  const std::string shown = text.size() > 80 ? std::string(text.substr(0, 80)) + "..." : std::string(text);
  return std::unexpected(
      MoveFailure{FailureKind::Unparseable, fmt::format("no move found in the answer '{}'", shown)});
}

}  // namespace agents::llm
