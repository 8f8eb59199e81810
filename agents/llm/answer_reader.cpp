// find_move: split into words, trim decorations, ask the game to parse each.
#include "agents/llm/answer_reader.h"

#include <fmt/format.h>

#include <cctype>
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
