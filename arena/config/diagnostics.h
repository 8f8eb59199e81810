// Config diagnostics: an error or warning tied to a place in a config file, printed as
// `file:line:col: message` (the form compilers use, so editors jump to it), and the
// nearest-name suggestion used for unknown keys and unknown references.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arena::config {

// A 1-based line and column in a config file (0 = no position, e.g. a command-line override).
struct SourceMark {
  int32_t line = 0;
  int32_t column = 0;
};

struct Diagnostic {
  std::string file;
  SourceMark mark;
  std::string message;

  // "file:line:col: message", or "file: message" without a position.
  std::string to_string() const;
};

// Every diagnostic, one per line.
std::string format_diagnostics(std::span<const Diagnostic> diagnostics);

// Collects the errors and warnings of one load, so every problem is reported at once.
class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  // Records an error at `mark` in this file.
  void error(SourceMark mark, std::string message);
  // Records a warning at `mark` in this file.
  void warning(SourceMark mark, std::string message);
  // Records an error about something outside the file (a command-line override).
  void error_at(std::string where, std::string message);

  const std::string& file() const { return file_; }
  bool has_errors() const { return !errors_.empty(); }
  std::vector<Diagnostic>& errors() { return errors_; }
  std::vector<Diagnostic>& warnings() { return warnings_; }

 private:
  std::string file_;
  std::vector<Diagnostic> errors_;
  std::vector<Diagnostic> warnings_;
};

// Levenshtein distance between two words (insert, delete, substitute: cost 1 each).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a likely typo, else nullopt.
std::optional<std::string> nearest_name(std::string_view word, std::span<const std::string> candidates);

// " (did you mean 'x'?)" for the nearest candidate, or "" when none is close.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

// "a, b, c": the candidates joined for a "known: ..." hint.
std::string join_names(std::span<const std::string> names);

}  // namespace arena::config
