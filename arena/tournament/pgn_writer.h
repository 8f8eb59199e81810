// games.pgn: one PGN game per finished game record. Tags: the Seven Tag Roster, then Variant
// ("Standard" for chess, "Janggi" for the janggi rule sets, as pychess-variants writes them;
// janggi games add VariantRules with the rule set, "janggi", "janggimodern", "janggicasual" or
// "janggitraditional", as Fairy-Stockfish's UCI_Variant names them),
// SetUp/FEN for a non-standard start (always for janggi, as pychess-variants does), Opening,
// Termination, PlyCount and TimeControl. Moves in SAN (chess) or Fairy-Stockfish SAN (janggi),
// each with a comment holding its latency, [%clk] when the game has clocks, and what the deadline
// policy or a failure did; the game's end reason is the last comment. Lines stay under 80 columns.
#pragma once

#include <expected>
#include <optional>
#include <string>

#include "arena/config/config.h"
#include "arena/tournament/game_record.h"

namespace arena::tournament {

struct PgnContext {
  std::string event = "arena tournament";
  std::string site = "?";
  std::optional<config::ClockConfig> clock;  // for TimeControl ("-" without)
};

// The PGN text of a finished (or unfinished, result "*") game, ending with a blank line; an error
// when a recorded move is not legal.
std::expected<std::string, std::string> game_to_pgn(const GameRecord& game, const PgnContext& context);

// The PGN TimeControl value: "base+increment" in seconds, or "-".
std::string pgn_time_control(const std::optional<config::ClockConfig>& clock);

}  // namespace arena::tournament
