// How a chess game ends: checkmate and stalemate, the dead positions of insufficient material,
// repetition of positions, and the fifty- and seventy-five-move rules (FIDE Laws, articles 5
// and 9). Positions are compared by Zobrist key, which covers the pieces, the side to move,
// castling rights and a usable en-passant square.
#pragma once

#include <cstdint>
#include <span>

#include "games/chess/position.h"
#include "games/game.h"

namespace games::chess {

// Whether neither side can ever checkmate: no pawns, rooks or queens, and either at most one
// minor piece in all or only bishops, all on squares of one colour.
bool insufficient_material(const Position& pos);

// How often the current position has occurred, counting itself. `keys` holds the key of every
// position of the game in order, the current one last; only the last pos.rule50() plies can
// hold a repetition.
int repetition_count(const Position& pos, std::span<const uint64_t> keys);

// The game's result under the rules that end it without a claim: checkmate, stalemate,
// insufficient material, fivefold repetition, seventy-five moves (in that order of priority).
Outcome automatic_outcome(const Position& pos, std::span<const uint64_t> keys);

// A draw the side to move may claim now (threefold repetition, fifty moves), when the game is
// not already over; Ongoing otherwise.
Outcome claimable_draw(const Position& pos, std::span<const uint64_t> keys);

}  // namespace games::chess
