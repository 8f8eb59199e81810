// EPD perft suites: lines "FEN ;D1 n ;D2 n ..." giving a position and its expected perft counts.
// The reader is strict and bounded: a count that does not fit in 64 bits, a depth outside 1-20 or
// a line longer than kMaxEpdLineBytes is an error naming the line, and reading stops there (so a
// file that never ends a line, like /dev/zero, fails after kMaxEpdLineBytes bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace games {

// The longest EPD line accepted (a FEN is under 100 bytes; counts add a few dozen each).
inline constexpr size_t kMaxEpdLineBytes = 4096;
// The most lines (blank and comment lines included) a suite may have.
inline constexpr int kMaxEpdLines = 1'000'000;

// One EPD line: a position and its expected node counts by depth, in the order written.
struct EpdEntry {
  int line = 0;  // 1-based line number in the file
  std::string fen;
  std::vector<std::pair<int, uint64_t>> counts;  // (depth 1-20, nodes)
};

// Parses one line (without its newline). nullopt for a blank or '#' comment line; an error
// message (without the file and line) for anything else that is not "FEN ;Dk n ...".
std::expected<std::optional<EpdEntry>, std::string> parse_epd_line(std::string_view text);

// Reads every entry of `in`; errors are "<name>:<line>: what is wrong".
std::expected<std::vector<EpdEntry>, std::string> read_epd(std::istream& in, const std::string& name);

}  // namespace games
