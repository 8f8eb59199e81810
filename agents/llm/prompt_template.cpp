// PromptTemplate: a single left-to-right scan into literal pieces and placeholder indices.
#include "agents/llm/prompt_template.h"

#include <fmt/format.h>

#include <cctype>

namespace agents::llm {

namespace {

bool is_name_char(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 || c == '_' ||
         std::isdigit(static_cast<unsigned char>(c)) != 0;
}

std::string known_names() {
  std::string out;
  for (auto name : kPlaceholderNames) out += fmt::format("{}{{{}}}", out.empty() ? "" : " ", name);
  return out;
}

}  // namespace

bool is_per_game(Placeholder p) {
  return p == Placeholder::Game || p == Placeholder::Variant || p == Placeholder::Side ||
         p == Placeholder::Opponent;
}

std::expected<PromptTemplate, std::string> PromptTemplate::parse(std::string_view text, std::string source,
                                                                 bool per_game_only) {
  PromptTemplate t;
  t.source_ = std::move(source);
  std::string literal;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (c != '{') {
      literal += c;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {  // "{{" is a literal brace
      literal += '{';
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && is_name_char(text[end])) ++end;
    if (end == i + 1 || end >= text.size() || text[end] != '}') {  // not {name}: literal text
      literal += c;
      continue;
    }
    const std::string_view name = text.substr(i + 1, end - i - 1);
    int index = -1;
    for (size_t k = 0; k < kPlaceholderNames.size(); ++k)
      if (kPlaceholderNames[k] == name) index = static_cast<int>(k);
    const size_t column = i - line_start + 1;
    if (index < 0)
      return std::unexpected(fmt::format("{}: line {}, column {}: unknown placeholder {{{}}} (known: {})",
                                         t.source_, line, column, name, known_names()));
    if (per_game_only && !is_per_game(static_cast<Placeholder>(index)))
      return std::unexpected(fmt::format(
          "{}: line {}, column {}: {{{}}} changes every move, so it cannot be in a system prompt (which "
          "must stay the same text for the prefix cache); only {{game}} {{variant}} {{side}} {{opponent}} "
          "can; move it to the move template",
          t.source_, line, column, name));
    t.pieces_.push_back({std::move(literal), index});
    literal.clear();
    i = end;
  }
  t.pieces_.push_back({std::move(literal), -1});
  return t;
}

std::string PromptTemplate::render(const PromptValues& values) const {
  std::string out;
  for (const auto& piece : pieces_) {
    out += piece.literal;
    if (piece.placeholder >= 0) out += values[static_cast<size_t>(piece.placeholder)];
  }
  return out;
}

bool PromptTemplate::uses(Placeholder p) const {
  for (const auto& piece : pieces_)
    if (piece.placeholder == static_cast<int>(p)) return true;
  return false;
}

}  // namespace agents::llm
