// Tactical hints for prompts, read off the legal moves with a one-move look: the captures (best
// first) and the escapes of attacked pieces. Fills the {captures} and {escapes} placeholders.
#pragma once

#include <string>
#include <vector>

#include "games/game.h"

namespace agents::llm {

// The legal moves that capture, each with the piece it takes, the best first: by the taken piece's
// value, less the capturing piece's where the opponent can take back at once (ties in legal-move
// order: "02차09 chariot, Nxe5 pawn"), or "none". `uci` and `moves` are the same moves,
// index-aligned.
std::string captures_text(const games::Game& game, const std::vector<std::string>& uci,
                          const std::vector<std::string>& moves);

// The legal moves that take one of the side to move's attacked pieces (one the opponent could
// capture if it were to move; not the king or general) to a square where the opponent cannot take
// it at once, the most valuable piece first (ties in legal-move order), at most `limit`:
// "Qd2, Qe3, Nf3", or "none" (also when in check: every legal move answers the check already).
std::string escapes_text(const games::Game& game, const std::vector<std::string>& uci,
                         const std::vector<std::string>& moves, size_t limit = 6);

}  // namespace agents::llm
