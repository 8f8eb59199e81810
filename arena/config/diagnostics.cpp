// Config diagnostics and the nearest-name suggestion (edit distance, case-insensitive).
#include "arena/config/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace arena::config {

std::string Diagnostic::to_string() const {
  if (mark.line <= 0) return fmt::format("{}: {}", file, message);
  return fmt::format("{}:{}:{}: {}", file, mark.line, mark.column, message);
}

std::string format_diagnostics(std::span<const Diagnostic> diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) out += d.to_string() + "\n";
  return out;
}

void Diagnostics::error(SourceMark mark, std::string message) {
  errors_.push_back({file_, mark, std::move(message)});
}

void Diagnostics::warning(SourceMark mark, std::string message) {
  warnings_.push_back({file_, mark, std::move(message)});
}

void Diagnostics::error_at(std::string where, std::string message) {
  errors_.push_back({std::move(where), {}, std::move(message)});
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> nearest_name(std::string_view word, std::span<const std::string> candidates) {
  // A typo changes a few characters: allow about one edit per three characters (at least 2),
  // but never more than half the word, so short unrelated words are not "corrected".
  const size_t limit = std::min(std::max<size_t>(2, word.size() / 3), std::max<size_t>(1, word.size() / 2));
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  const auto best = nearest_name(word, candidates);
  return best ? fmt::format(" (did you mean '{}'?)", *best) : std::string();
}

std::string join_names(std::span<const std::string> names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace arena::config
