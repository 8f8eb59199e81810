// Moves as text: UCI ("e2e4", "e7e8q", castling as the king's move "e1g1") and SAN ("Nf3",
// "exd5", "e8=Q+", "O-O-O#"). The reader takes either, forgives common sloppiness ("e8Q", "0-0",
// "Ng1f3", "e2-e4", a missing or wrong +/#, annotations like "!?"), and explains any move it
// cannot accept: unparseable, ambiguous, no such piece, or illegal and why.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "games/chess/position.h"
#include "games/chess/types.h"
#include "games/game.h"

namespace games::chess {

// The move in UCI notation.
std::string to_uci(Move m);

// The legal move `m` in Standard Algebraic Notation for position `pos` (before the move).
std::string to_san(const Position& pos, Move m);

// Reads a move in UCI or SAN and returns the legal move it names, or what is wrong with it.
std::expected<Move, GameError> parse_move(const Position& pos, std::string_view text);

}  // namespace games::chess
