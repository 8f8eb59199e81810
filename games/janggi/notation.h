// Janggi move notation: UCI (b1c3, a10a9, e2e2 for a pass) and the Korean numeric notation
// (02마83). A numeric square is two digits, the row counted from Han's back rank (1..9, with 0 for
// the tenth row, Cho's back rank) and then the file counted from Cho's left (1..9); both sides use
// the same coordinates, as in Fairy-Stockfish's janggi notation (H02-83). The piece name sits
// between the two squares: 궁 general, 사 guard, 상 elephant, 마 horse, 차 chariot, 포 cannon,
// 졸 Cho soldier, 병 Han soldier; a pass is 한수쉼.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "games/game.h"
#include "games/janggi/position.h"
#include "games/janggi/rules.h"

namespace games::janggi {

// The numeric name of a square, e.g. "02" for b1.
std::string numeric_square(Square s);

// The Korean numeric notation of the legal move `m`, e.g. "02마83", or "한수쉼" for a pass.
std::string numeric_move(const Position& pos, Move m);

// Reads a move in UCI or numeric notation ("b1c3", "02마83", "H02-83", "0283", "pass", "한수쉼")
// and returns it if it is legal under `rules`; otherwise says what is wrong with it.
std::expected<Move, GameError> parse_move_text(const Position& pos, const Rules& rules,
                                               std::string_view text);

}  // namespace games::janggi
