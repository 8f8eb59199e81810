// Portable Game Notation: writing finished games (Seven Tag Roster, SetUp/FEN for a custom
// start, Termination, SAN movetext wrapped at 80 columns) and reading games such as opening
// lines (tag pairs, move numbers, comments, variations, NAGs and results; variations and
// comments are skipped, the main line is kept).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "games/game.h"

namespace games::chess {

// One game as PGN holds it.
struct PgnGame {
  // Tag pairs in file order. When writing, the Seven Tag Roster comes first whatever the order
  // here (a missing one is written as "?", Date as "????.??.??"), and SetUp/FEN/Result are
  // taken from the fields below rather than from here.
  std::vector<std::pair<std::string, std::string>> tags;
  std::string start_fen;           // empty for the standard start position
  std::vector<std::string> moves;  // the main line, in UCI
  std::string result = "*";        // "1-0", "0-1", "1/2-1/2" or "*"

  // The value of tag `name`, or "" when absent.
  std::string tag(std::string_view name) const;
};

// The PGN result token for an outcome ("1-0", "0-1", "1/2-1/2", "*").
std::string pgn_result(const Outcome& outcome);

// `game` as PGN text ending with a blank line, or an error if a move is illegal or the FEN is bad.
// Without a Termination tag, "normal" is written for a decided game and "unterminated" for "*".
std::expected<std::string, GameError> write_pgn(const PgnGame& game);

// Every game in `text`, moves checked for legality; errors name the line and the move.
std::expected<std::vector<PgnGame>, GameError> read_pgn(std::string_view text);

}  // namespace games::chess
