// The CLI's error exits and number checks, so that every command reports errors one way.
#include "arena/cli/command.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

namespace arena::cli {

namespace {

// `text` as a number, or nullopt when it is not one in full.
std::optional<double> read_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    // from_chars refuses "nan" / "inf" spelt with a sign or case it does not know; strtod decides.
    char* stop = nullptr;
    value = std::strtod(text.c_str(), &stop);
    if (text.empty() || stop != text.c_str() + text.size()) return std::nullopt;
  }
  return value;
}

CLI::Validator checked_number(double min, double max, std::string description) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const auto value = read_number(text);
        if (!value) return fmt::format("'{}' is not a number", text);
        if (!std::isfinite(*value)) return fmt::format("{} is not a finite number", text);
        if (*value < min) return fmt::format("{} is below the minimum {}", text, min);
        if (*value > max) return fmt::format("{} is above the maximum {}", text, max);
        return {};
      },
      std::move(description));
}

}  // namespace

int fail(std::string_view command, std::string_view message) {
  fmt::print(stderr, "arena {}: error: {}\n", command, message);
  return 1;
}

int usage_error(std::string_view command, std::string_view message) {
  fmt::print(stderr, "arena {}: error: {}\n", command, message);
  return kUsageExitCode;
}

CLI::Validator number_in(double min, double max) {
  return checked_number(min, max, fmt::format("in [{}, {}]", min, max));
}

CLI::Validator number_at_least(double min) {
  return checked_number(min, std::numeric_limits<double>::infinity(), fmt::format(">= {}", min));
}

CLI::Validator name_check(config::NameCheck (*check)(std::string_view), const char* what) {
  return CLI::Validator(
      [check](std::string& value) {
        config::NameCheck checked = check(value);
        if (checked.error) return *checked.error;
        value = std::move(checked.normalised);
        return std::string();
      },
      what);
}

}  // namespace arena::cli
