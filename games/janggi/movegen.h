// Janggi move generation: pseudo-legal moves from the precomputed geometry, legality by making
// the move on the board and testing the general (plus the bikjang restriction), and perft.
#pragma once

#include <array>
#include <cstdint>

#include "games/janggi/position.h"
#include "games/janggi/rules.h"

namespace games::janggi {

// A fixed-capacity list of moves. A janggi set (all the FEN reader allows) has fewer than 170
// moves in any position, so 256 never overflows.
struct MoveList {
  std::array<Move, 256> moves;
  int size = 0;

  // Appends a move.
  void add(Move m) { moves[size++] = m; }
  const Move* begin() const { return moves.data(); }
  const Move* end() const { return moves.data() + size; }
  // Whether `m` is in the list.
  bool contains(Move m) const;
};

// Every move of the side to move's pieces that follows the piece rules, captures of own pieces
// excluded; no pass, and no check of the general's safety.
void generate_piece_moves(const Position& pos, MoveList& list);

// The legal moves of the side to move, the pass (general's square twice) last. Empty once the
// game has ended by bikjang or a double pass.
void generate_legal(Position& pos, const Rules& rules, MoveList& list);

// Leaf nodes of the legal-move tree `depth` plies deep.
uint64_t perft(Position& pos, const Rules& rules, int depth);

}  // namespace games::janggi
