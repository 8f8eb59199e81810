// The prompt templates of llm agents checked at load with the agent's own scan
// (agents::llm::template_problems: one list of placeholders), so `arena run --check` reports an
// unknown `{placeholder}` at its place in the file with the other errors, instead of the run
// refusing it at start.
#include <fmt/format.h>

#include "agents/llm/prompt_template.h"
#include "arena/config/sections.h"

namespace arena::config {
namespace {

namespace llm = agents::llm;

// Line `number` (1-based) of `text`, without its newline; "" past the end.
std::string_view line_of(std::string_view text, int32_t number) {
  size_t start = 0;
  for (int32_t n = 1; n < number; ++n) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  const size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
}

// Where problem `p` of the inline value `v` sits in the file: the placeholder's own line and
// column when the file holds it there as written (a plain or quoted scalar on one line, or a
// line of a literal block), else the value's start. Checked against the file's text, so an
// escape or a folded line never gives a wrong column.
SourceMark problem_mark(std::string_view file_text, const YamlNode& v, const llm::TemplateProblem& p) {
  const std::string needle = "{" + p.name + "}";
  const auto holds = [&](int32_t line, size_t column0) {
    const std::string_view raw = line_of(file_text, line);
    return line > 0 && column0 <= raw.size() && raw.substr(column0).starts_with(needle);
  };
  if (v.mark.line > 0 && v.mark.column > 0) {
    const size_t value_col0 = static_cast<size_t>(v.mark.column - 1) + (v.quoted ? 1 : 0);
    if (p.line == 1 && holds(v.mark.line, value_col0 + p.offset))
      return {v.mark.line, static_cast<int32_t>(value_col0 + p.offset + 1)};
    // A literal block (`|`): value line k is the file's line mark + k, indented.
    const int32_t line = v.mark.line + p.line;
    const std::string_view raw = line_of(file_text, line), text = line_of(v.scalar, p.line);
    if (raw.size() >= text.size() && raw.ends_with(text)) {
      const size_t column0 = raw.size() - text.size() + static_cast<size_t>(p.column - 1);
      if (holds(line, column0)) return {line, static_cast<int32_t>(column0 + 1)};
    }
  }
  return v.mark;
}

std::string describe(const std::string& key, const llm::TemplateProblem& p) {
  if (!p.unknown) return fmt::format("{}: {}", key, p.message);
  std::vector<std::string> names(llm::kPlaceholderNames.begin(), llm::kPlaceholderNames.end());
  const auto near = nearest_name(p.name, names);
  return fmt::format("{}: {}{}; known: {}", key, p.message,
                     near ? fmt::format(" (did you mean '{{{}}}'?)", *near) : std::string(),
                     llm::known_placeholders());
}

}  // namespace

void check_prompt(LoadContext& ctx, const std::string& key, const std::string& text, const YamlNode* value,
                  SourceMark file_mark, const std::string& file) {
  if (text.empty()) return;  // the agent's default prompt
  for (const auto& p : llm::template_problems(text, /*per_game_only=*/key == "system_prompt")) {
    if (value)
      ctx.diag.error(problem_mark(ctx.text, *value, p), describe(key, p));
    else
      ctx.diag.error(file_mark, fmt::format("{} file {}: line {}, column {}: {}", key, file, p.line, p.column,
                                            describe(key, p).substr(key.size() + 2)));
  }
}

}  // namespace arena::config
