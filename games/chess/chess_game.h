// Chess behind the variant-neutral games::Game interface.
//
// Rules: FIDE Laws of Chess (games/chess/rules.h for the endings). Notation: UCI and SAN
// (games/chess/notation.h), FEN with Stockfish's conventions (games/chess/fen.h); PGN lives in
// games/chess/pgn.h. The board view lists the 64 squares from a8 to h1, rank by rank.
#pragma once

#include <expected>
#include <memory>
#include <string_view>

#include "games/game.h"

namespace games::chess {

// A chess game from `fen` (the standard start position when empty), or what is wrong with the FEN.
std::expected<std::unique_ptr<Game>, GameError> make_chess_game(std::string_view fen);

}  // namespace games::chess
