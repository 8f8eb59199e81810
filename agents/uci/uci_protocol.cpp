// UCI command and message text (see uci_protocol.h).
#include "agents/uci/uci_protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

namespace agents::uci {
namespace {

// The whitespace-separated words of `line`.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<int32_t> to_int(std::string_view text) {
  int32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  // -2^31 has no negation: the adjudication negates scores and takes their absolute value.
  if (value == std::numeric_limits<int32_t>::min()) return std::nullopt;
  return value;
}

// Joins words [from, to) with single spaces.
std::string join(const std::vector<std::string_view>& w, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < w.size(); ++i) {
    if (!out.empty()) out += ' ';
    out += w[i];
  }
  return out;
}

// A square of a board `files` wide and `ranks` high at the start of `text`; its length or 0.
size_t square_length(std::string_view text, int files, int ranks) {
  if (text.size() < 2 || text[0] < 'a' || text[0] >= 'a' + files) return 0;
  if (ranks >= 10 && text.size() >= 3 && text[1] == '1' && text[2] == '0') return 3;
  return (text[1] >= '1' && text[1] <= '9' && text[1] - '0' <= ranks) ? 2 : 0;
}

}  // namespace

std::optional<OptionInfo> parse_option(std::string_view line) {
  const auto w = words(line);
  if (w.size() < 4 || w[0] != "option" || w[1] != "name") return std::nullopt;
  const auto type_at = std::find(w.begin() + 2, w.end(), "type");
  if (type_at == w.end() || type_at + 1 == w.end()) return std::nullopt;
  OptionInfo info;
  info.name = join(w, 2, size_t(type_at - w.begin()));
  info.type = std::string(*(type_at + 1));
  for (auto it = type_at + 2; it != w.end(); ++it)
    if (*it == "var" && it + 1 != w.end()) info.vars.emplace_back(*++it);
  if (info.name.empty()) return std::nullopt;
  return info;
}

std::optional<InfoScore> parse_info_score(std::string_view line) {
  const auto w = words(line);
  if (w.empty() || w[0] != "info") return std::nullopt;
  for (size_t i = 1; i + 1 < w.size(); ++i) {
    if (w[i] == "string") return std::nullopt;  // free text follows
    if (w[i] != "score" || i + 2 >= w.size()) continue;
    InfoScore score;
    if (w[i + 1] == "cp") score.cp = to_int(w[i + 2]);
    if (w[i + 1] == "mate") score.mate = to_int(w[i + 2]);
    if (score.cp || score.mate) return score;
  }
  return std::nullopt;
}

std::optional<std::string> parse_bestmove(std::string_view line) {
  const auto w = words(line);
  if (w.empty() || w[0] != "bestmove") return std::nullopt;
  return w.size() >= 2 ? std::string(w[1]) : std::string();
}

bool is_engine_message(std::string_view line) {
  const auto w = words(line);
  if (w.empty()) return true;  // blank lines are harmless
  static constexpr std::string_view kCommands[] = {"id",   "uciok",  "readyok",        "bestmove",
                                                   "info", "option", "copyprotection", "registration"};
  return std::find(std::begin(kCommands), std::end(kCommands), w[0]) != std::end(kCommands);
}

bool is_move_syntax(std::string_view variant, std::string_view move) {
  const bool chess = variant == "chess";
  const int files = chess ? 8 : 9, ranks = chess ? 8 : 10;
  const size_t from = square_length(move, files, ranks);
  if (from == 0) return false;
  const size_t to = square_length(move.substr(from), files, ranks);
  if (to == 0) return false;
  const std::string_view rest = move.substr(from + to);
  if (rest.empty()) return true;
  return chess && rest.size() == 1 && std::string_view("qrbn").find(rest[0]) != std::string_view::npos;
}

std::string position_command(const std::string& start_fen, const std::vector<std::string>& moves) {
  std::string command = start_fen.empty() ? "position startpos" : "position fen " + start_fen;
  if (!moves.empty()) command += " moves";
  for (const auto& m : moves) command += " " + m;
  return command;
}

std::string go_command(const GoLimits& limits, const std::optional<ClockState>& clock,
                       std::chrono::milliseconds fallback) {
  if (limits.movetime) return fmt::format("go movetime {}", std::max<int64_t>(1, limits.movetime->count()));
  if (limits.depth || limits.nodes) {
    std::string command = "go";
    if (limits.depth) command += fmt::format(" depth {}", *limits.depth);
    if (limits.nodes) command += fmt::format(" nodes {}", *limits.nodes);
    return command;
  }
  if (clock)
    return fmt::format("go wtime {} btime {} winc {} binc {}",
                       std::max<int64_t>(0, clock->first_remaining.count()),
                       std::max<int64_t>(0, clock->second_remaining.count()), clock->increment.count(),
                       clock->increment.count());
  return fmt::format("go movetime {}", std::max<int64_t>(1, fallback.count()));
}

}  // namespace agents::uci
