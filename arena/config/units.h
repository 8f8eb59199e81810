// Durations ("500ms", "2s", "1m", "1m30s", "1.5s") and memory sizes ("256MiB", "1GiB", "1.5GB",
// a bare number of bytes) as the config file writes them, and back.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace arena::config {

// A duration: one or more <number><unit> parts (units ms, s, m or min, h; decimals allowed), or
// a bare 0. The result is rounded to whole milliseconds; an error says what is wrong.
std::expected<std::chrono::milliseconds, std::string> parse_duration(std::string_view text);

// The shortest exact spelling of `d` in the largest whole unit: "0s", "250ms", "2s", "5m", "1h".
std::string format_duration(std::chrono::milliseconds d);

// A memory size in bytes: <number>[unit] with units B, KiB, MiB, GiB, TiB (powers of 1024) or
// KB, MB, GB, TB (powers of 1000), case-insensitive; a bare number is bytes.
std::expected<uint64_t, std::string> parse_memory_size(std::string_view text);

// The size in the largest binary unit that divides it exactly: "256MiB", "1GiB", "1000B".
std::string format_memory_size(uint64_t bytes);

}  // namespace arena::config
