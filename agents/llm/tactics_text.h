// Tactical hints for prompts, read off the legal moves with a one-move look: the captures and the
// escapes of attacked pieces, each list one move a line with its best move last. Fills the
// {captures} and {escapes} placeholders.
//
// The layout is for a small model reading them: one a line, so that each move starts a word of its
// own (a byte-level BPE merges a space into the word after it, and a move after a space would not
// be the tokens the model answers with), and the best last, so that in a prompt that ends with the
// list the move to copy stands a fixed few tokens before the answer.
#pragma once

#include <string>
#include <vector>

#include "games/game.h"

namespace agents::llm {

// The legal moves that capture, each with the piece it takes, ranked by the taken piece's value,
// less the capturing piece's where the opponent can take back at once (ties in legal-move order),
// and listed worst first, best last: "Nxb6 pawn\nNxe7 queen"; or "none". `uci` and `moves` are
// the same moves, index-aligned.
std::string captures_text(const games::Game& game, const std::vector<std::string>& uci,
                          const std::vector<std::string>& moves);

// The legal moves that take one of the side to move's attacked pieces (one the opponent could
// capture if it were to move; not the king or general) to a square where the opponent cannot take
// it at once: at most `limit`, ranked by the piece's value (ties in legal-move order) and listed
// with the most valuable piece's last: "Nf3\nQe3\nQd2"; or "none" (also when in check: every
// legal move answers the check already).
std::string escapes_text(const games::Game& game, const std::vector<std::string>& uci,
                         const std::vector<std::string>& moves, size_t limit = 6);

}  // namespace agents::llm
