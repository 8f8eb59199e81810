// Perft: the number of leaf nodes of the legal-move tree, the standard check of a move
// generator. Counts moves at the last ply instead of playing them (bulk counting), as
// Stockfish's `go perft` does.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "games/chess/position.h"
#include "games/chess/types.h"

namespace games::chess {

// Leaf nodes `depth` plies below `pos` (1 at depth 0).
uint64_t perft(const Position& pos, int depth);

// perft(depth - 1) after each legal move, in generation order (depth >= 1).
std::vector<std::pair<Move, uint64_t>> perft_divide(const Position& pos, int depth);

}  // namespace games::chess
