// Parsing and printing of the config's durations and memory sizes.
#include "arena/config/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "base/strings.h"

namespace arena::config {
namespace {

// Splits a leading unsigned decimal number ("12", "1.5", ".5") off `text`.
bool take_number(std::string_view& text, double& value) {
  size_t n = 0;
  bool digits = false, dot = false;
  while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) || (text[n] == '.' && !dot))) {
    if (text[n] == '.')
      dot = true;
    else
      digits = true;
    ++n;
  }
  if (!digits) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + n, value);
  if (ec != std::errc() || ptr != text.data() + n) return false;
  text.remove_prefix(n);
  return true;
}

// Splits the leading letters off `text`, lower-cased.
std::string take_unit(std::string_view& text) {
  std::string unit;
  while (!text.empty() && std::isalpha(static_cast<unsigned char>(text.front()))) {
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text.front())));
    text.remove_prefix(1);
  }
  return unit;
}

constexpr double kMaxMilliseconds = 1e12;  // about 31 years: far beyond any tournament
constexpr double kMaxBytes = 1e18;

}  // namespace

std::expected<std::chrono::milliseconds, std::string> parse_duration(std::string_view text) {
  const std::string original(text);
  text = base::trim(text);
  const auto bad = [&](std::string why) {
    return std::unexpected(
        fmt::format("invalid duration '{}': {} (write e.g. 500ms, 2s, 1m, 1m30s)", original, why));
  };
  if (text.empty()) return bad("empty");
  if (text == "0") return std::chrono::milliseconds(0);
  double total = 0;
  while (!text.empty()) {
    double value = 0;
    if (!take_number(text, value)) return bad(text.front() == '-' ? "negative" : "expected a number");
    const std::string unit = take_unit(text);
    static constexpr std::array<std::pair<const char*, double>, 5> kUnits{
        {{"ms", 1.0}, {"s", 1e3}, {"m", 6e4}, {"min", 6e4}, {"h", 3.6e6}}};
    const auto it =
        std::find_if(kUnits.begin(), kUnits.end(), [&](const auto& u) { return unit == u.first; });
    if (unit.empty()) return bad("a number needs a unit (ms, s, m, h)");
    if (it == kUnits.end()) return bad(fmt::format("unknown unit '{}' (use ms, s, m, h)", unit));
    total += value * it->second;
    if (total > kMaxMilliseconds) return bad("too long");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(total)));
}

std::string format_duration(std::chrono::milliseconds d) {
  const int64_t ms = d.count();
  if (ms == 0) return "0s";
  if (ms % 3'600'000 == 0) return fmt::format("{}h", ms / 3'600'000);
  if (ms % 60'000 == 0) return fmt::format("{}m", ms / 60'000);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}ms", ms);
}

std::expected<uint64_t, std::string> parse_memory_size(std::string_view text) {
  const std::string original(text);
  text = base::trim(text);
  const auto bad = [&](std::string why) {
    return std::unexpected(
        fmt::format("invalid memory size '{}': {} (write e.g. 256MiB, 2GiB)", original, why));
  };
  double value = 0;
  if (!take_number(text, value))
    return bad(!text.empty() && text.front() == '-' ? "negative" : "expected a number");
  text = base::trim(text);
  const std::string unit = take_unit(text);
  if (!text.empty()) return bad("unexpected text after the unit");
  static constexpr std::array<std::pair<const char*, double>, 10> kUnits{{{"", 1.0},
                                                                          {"b", 1.0},
                                                                          {"kib", 1024.0},
                                                                          {"mib", 1048576.0},
                                                                          {"gib", 1073741824.0},
                                                                          {"tib", 1099511627776.0},
                                                                          {"kb", 1e3},
                                                                          {"mb", 1e6},
                                                                          {"gb", 1e9},
                                                                          {"tb", 1e12}}};
  const auto it = std::find_if(kUnits.begin(), kUnits.end(), [&](const auto& u) { return unit == u.first; });
  if (it == kUnits.end())
    return bad(fmt::format("unknown unit '{}' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", unit));
  const double bytes = value * it->second;
  if (bytes > kMaxBytes) return bad("too large");
  return static_cast<uint64_t>(std::llround(bytes));
}

std::string format_memory_size(uint64_t bytes) {
  static constexpr std::array<std::pair<const char*, uint64_t>, 4> kUnits{{{"TiB", uint64_t{1} << 40},
                                                                           {"GiB", uint64_t{1} << 30},
                                                                           {"MiB", uint64_t{1} << 20},
                                                                           {"KiB", uint64_t{1} << 10}}};
  if (bytes == 0) return "0";
  for (const auto& [name, size] : kUnits)
    if (bytes % size == 0) return fmt::format("{}{}", bytes / size, name);
  return fmt::format("{}B", bytes);
}

}  // namespace arena::config
