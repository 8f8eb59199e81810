// Legal move generation: king moves against the opponent's attack map, a check mask for single
// checks, pin rays for pinned pieces, and an exact test for en-passant captures. Every move
// generated is legal; nothing needs to be filtered afterwards.
#pragma once

#include "games/chess/position.h"
#include "games/chess/types.h"

namespace games::chess {

// Enough room for any position the FEN reader accepts: at most 9 queens, 2 rooks, 2 bishops,
// 2 knights and a king per side give at most 9*27 + 2*14 + 2*13 + 2*8 + 8 + 2 = 323 moves.
inline constexpr int kMaxMoves = 336;

// A fixed-capacity list of moves, filled by generate_legal.
class MoveList {
 public:
  void push(Move m) { moves_[size_++] = m; }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Move* begin() const { return moves_; }
  const Move* end() const { return moves_ + size_; }
  Move operator[](int i) const { return moves_[i]; }

 private:
  Move moves_[kMaxMoves];
  int size_ = 0;
};

// Appends every legal move of the side to move to `list`.
void generate_legal(const Position& pos, MoveList& list);

// The number of legal moves of the side to move (without building the list).
int count_legal(const Position& pos);

// Whether the side to move has at least one legal move.
bool has_legal_move(const Position& pos);

}  // namespace games::chess
