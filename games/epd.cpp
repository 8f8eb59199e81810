// EPD perft-suite reading (see epd.h): counts parsed with std::from_chars so overflow is
// detected, lines read with a length bound, untrusted text quoted only as a short escaped excerpt.
#include "games/epd.h"

#include <fmt/core.h>

#include <charconv>

#include "base/strings.h"

namespace games {

namespace {

constexpr int kMaxDepth = 20;

// Printable form of untrusted text for messages: at most 40 characters, odd bytes escaped.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f && c != '\'') ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  }
  return out + (text.size() > 40 ? "...'" : "'");
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// One "Dk n" field (already trimmed).
std::expected<std::pair<int, uint64_t>, std::string> parse_count(std::string_view field) {
  const auto bad = [&] {
    return std::unexpected(fmt::format("field {} is not of the form 'Dk n' (depth 1-{}, a node count)",
                                       quoted(field), kMaxDepth));
  };
  if (field.size() < 2 || field[0] != 'D') return bad();
  size_t space = 1;
  while (space < field.size() && !base::is_space(field[space])) ++space;
  const std::string_view depth_text = field.substr(1, space - 1);
  const std::string_view nodes_text = base::trim(field.substr(space));
  if (!all_digits(depth_text) || !all_digits(nodes_text)) return bad();
  int depth = 0;
  if (auto [p, ec] = std::from_chars(depth_text.data(), depth_text.data() + depth_text.size(), depth);
      ec != std::errc() || depth < 1 || depth > kMaxDepth)
    return std::unexpected(fmt::format("depth {} is out of range (1-{})", quoted(depth_text), kMaxDepth));
  uint64_t nodes = 0;
  if (auto [p, ec] = std::from_chars(nodes_text.data(), nodes_text.data() + nodes_text.size(), nodes);
      ec != std::errc())
    return std::unexpected(
        fmt::format("the D{} count {} does not fit in 64 bits", depth, quoted(nodes_text)));
  return std::pair{depth, nodes};
}

}  // namespace

std::expected<std::optional<EpdEntry>, std::string> parse_epd_line(std::string_view line) {
  const std::string_view text = base::trim(line);
  if (text.empty() || text[0] == '#') return std::nullopt;
  const auto semi = text.find(';');
  const std::string_view fen = base::trim(text.substr(0, semi));
  if (semi == std::string_view::npos || fen.empty())
    return std::unexpected(fmt::format("malformed line, expected 'FEN ;D1 n ;D2 n ...': {}", quoted(text)));
  EpdEntry entry;
  entry.fen = std::string(fen);
  for (size_t at = semi; at < text.size();) {
    const size_t next = text.find(';', at + 1);
    const std::string_view field = base::trim(
        text.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1));
    at = next == std::string_view::npos ? text.size() : next;
    if (field.empty()) continue;
    auto count = parse_count(field);
    if (!count) return std::unexpected("malformed line: " + count.error());
    entry.counts.push_back(*count);
  }
  if (entry.counts.empty())
    return std::unexpected(fmt::format("malformed line, no ';Dk n' counts: {}", quoted(text)));
  return entry;
}

std::expected<std::vector<EpdEntry>, std::string> read_epd(std::istream& in, const std::string& name) {
  std::vector<EpdEntry> entries;
  std::string line;
  for (int number = 1;; ++number) {
    // A bounded getline: stop at '\n', end of input, or one byte past the limit.
    line.clear();
    bool ended = false;
    for (int c; (c = in.get()) != std::char_traits<char>::eof();) {
      if (c == '\n') {
        ended = true;
        break;
      }
      if (line.size() == kMaxEpdLineBytes)
        return std::unexpected(fmt::format("{}:{}: line longer than {} bytes (is this an EPD file?)", name,
                                           number, kMaxEpdLineBytes));
      line.push_back(static_cast<char>(c));
    }
    if (in.bad()) return std::unexpected(fmt::format("{}: read error at line {}", name, number));
    if (!ended && line.empty()) break;  // end of input
    if (number > kMaxEpdLines)
      return std::unexpected(fmt::format("{}: more than {} lines", name, kMaxEpdLines));
    auto entry = parse_epd_line(line);
    if (!entry) return std::unexpected(fmt::format("{}:{}: {}", name, number, entry.error()));
    if (*entry) {
      (*entry)->line = number;
      entries.push_back(std::move(**entry));
    }
    if (!ended) break;
  }
  return entries;
}

}  // namespace games
