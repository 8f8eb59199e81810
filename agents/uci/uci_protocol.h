// The text side of the UCI protocol as the UCI agent speaks it: the commands it sends (position,
// go with a per-move limit or the clock) and the engine lines it reads (option declarations, info
// scores, bestmove), plus the move syntax of each variant (chess e2e4 / e7e8q; janggi files a-i and
// ranks 1-10 as Fairy-Stockfish writes them, a10a9, the pass as the general's square twice).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"

namespace agents::uci {

// An `option name ... type ...` line: the name, its type and, for combo options, the values.
struct OptionInfo {
  std::string name;
  std::string type;
  std::vector<std::string> vars;
};

// Reads an option declaration, or nullopt when `line` is not one.
std::optional<OptionInfo> parse_option(std::string_view line);

// The score of an `info` line (from the engine's side), when it has one.
struct InfoScore {
  std::optional<int32_t> cp;
  std::optional<int32_t> mate;
};
std::optional<InfoScore> parse_info_score(std::string_view line);

// The move of a `bestmove X [ponder Y]` line (X as written, possibly "(none)"), or nullopt when the
// line is not a bestmove line.
std::optional<std::string> parse_bestmove(std::string_view line);

// Whether `line` is a message a UCI engine may send (id, uciok, readyok, bestmove, copyprotection,
// registration, info, option), as opposed to garbage.
bool is_engine_message(std::string_view line);

// Whether `move` has the shape of a UCI move of `variant` (no legality check).
bool is_move_syntax(std::string_view variant, std::string_view move);

// "position fen F moves m1 m2 ..." ("position startpos ..." when `start_fen` is empty).
std::string position_command(const std::string& start_fen, const std::vector<std::string>& moves);

// The per-move limits of a UCI agent: movetime wins over depth and nodes; none of them and a
// clock gives wtime/btime/winc/binc; nothing at all gives movetime = `fallback`.
struct GoLimits {
  std::optional<std::chrono::milliseconds> movetime;
  std::optional<int32_t> depth;
  std::optional<int64_t> nodes;
};
std::string go_command(const GoLimits& limits, const std::optional<ClockState>& clock,
                       std::chrono::milliseconds fallback);

}  // namespace agents::uci
