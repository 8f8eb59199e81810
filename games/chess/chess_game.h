// Chess behind the variant-neutral games::Game interface.
//
// Rules: FIDE Laws of Chess (games/chess/rules.h for the endings). Notation: UCI and SAN
// (games/chess/notation.h), FEN with Stockfish's conventions (games/chess/fen.h); PGN lives in
// games/chess/pgn.h. to_json() gives one object:
//   {"variant":"chess", "fen":..., "files":8, "ranks":8,
//    "squares":[64 FEN letters or "", rank 8 first, a-file first], "side_to_move":"white"|"black",
//    "ply":n, "last_move":uci|null, "last_move_san":san|null, "in_check":bool,
//    "outcome":{"result":"ongoing"|"white_wins"|"black_wins"|"draw", "reason":...},
//    "claimable_draw":reason|null, "legal_moves":[uci...], "legal_moves_san":[san...]}
#pragma once

#include <expected>
#include <memory>
#include <string_view>

#include "games/game.h"

namespace games::chess {

// A chess game from `fen` (the standard start position when empty), or what is wrong with the FEN.
std::expected<std::unique_ptr<Game>, GameError> make_chess_game(std::string_view fen);

}  // namespace games::chess
