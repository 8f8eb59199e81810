// PromptTemplate: a single left-to-right scan into literal pieces and placeholder indices. The
// same scan lists a template's problems for the config check (template_problems), so `arena run
// --check` and the agent at start refuse exactly the same templates.
#include "agents/llm/prompt_template.h"

#include <fmt/format.h>

#include <cctype>

namespace agents::llm {

namespace {

bool is_name_char(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 || c == '_' ||
         std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Scans `text` left to right: literal(c) for each literal character, placeholder(name, offset,
// line, column) for each `{name}` (offset of its '{', 1-based line and column within the text).
template <class Literal, class Found>
void scan(std::string_view text, Literal&& literal, Found&& placeholder) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (c != '{') {
      literal(c);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {  // "{{" is a literal brace
      literal('{');
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && is_name_char(text[end])) ++end;
    if (end == i + 1 || end >= text.size() || text[end] != '}') {  // not {name}: literal text
      literal(c);
      continue;
    }
    placeholder(text.substr(i + 1, end - i - 1), i, line, static_cast<int>(i - line_start + 1));
    i = end;
  }
}

int index_of(std::string_view name) {
  for (size_t k = 0; k < kPlaceholderNames.size(); ++k)
    if (kPlaceholderNames[k] == name) return static_cast<int>(k);
  return -1;
}

}  // namespace

std::string known_placeholders() {
  std::string out;
  for (auto name : kPlaceholderNames) out += fmt::format("{}{{{}}}", out.empty() ? "" : " ", name);
  return out;
}

bool is_per_game(Placeholder p) {
  return p == Placeholder::Game || p == Placeholder::Variant || p == Placeholder::Side ||
         p == Placeholder::Opponent;
}

std::vector<TemplateProblem> template_problems(std::string_view text, bool per_game_only) {
  std::vector<TemplateProblem> out;
  scan(
      text, [](char) {},
      [&](std::string_view name, size_t offset, int line, int column) {
        const int index = index_of(name);
        if (index < 0) {
          out.push_back({offset, line, column, std::string(name), true,
                         fmt::format("unknown placeholder {{{}}}", name)});
        } else if (per_game_only && !is_per_game(static_cast<Placeholder>(index))) {
          out.push_back({offset, line, column, std::string(name), false,
                         fmt::format("{{{}}} changes every move, so it cannot be in a system prompt (which "
                                     "must stay the same text for the prefix cache); only {{game}} "
                                     "{{variant}} {{side}} {{opponent}} can; move it to the move template",
                                     name)});
        }
      });
  return out;
}

std::expected<PromptTemplate, std::string> PromptTemplate::parse(std::string_view text, std::string source,
                                                                 bool per_game_only) {
  if (const auto problems = template_problems(text, per_game_only); !problems.empty()) {
    const TemplateProblem& p = problems.front();
    return std::unexpected(fmt::format("{}: line {}, column {}: {}{}", source, p.line, p.column, p.message,
                                       p.unknown ? " (known: " + known_placeholders() + ")" : ""));
  }
  PromptTemplate t;
  t.source_ = std::move(source);
  std::string literal;
  scan(
      text, [&](char c) { literal += c; },
      [&](std::string_view name, size_t, int, int) {
        t.pieces_.push_back({std::move(literal), index_of(name)});
        literal.clear();
      });
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
