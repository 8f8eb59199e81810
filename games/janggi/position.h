// A janggi position: the mailbox board, side to move, piece counts, a Zobrist key, and a stack of
// per-move states so that moves can be made and unmade cheaply. Knows how pieces attack (for
// check) and whether the generals face each other (bikjang); it knows nothing of rule sets.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "games/janggi/types.h"

namespace games::janggi {

// What a position remembers about how it was reached, for undo and for the ending rules.
struct StateInfo {
  uint64_t key = 0;          // Zobrist key of this position (board and side to move)
  Move move{};               // the move that reached it (meaningless for the first state)
  Piece captured = NoPiece;  // the piece that move took
  int rule50 = 0;            // plies since the last capture (FEN halfmove clock)
  bool pass = false;         // reached by a pass
  bool facing = false;       // the generals face each other on an open file
  bool in_check = false;     // the side to move's general is attacked
};

// Invariants (enforced by the FEN reader): one general per side, generals and guards inside their
// own palace, no more pieces than a janggi set, and the side not to move is not in check.
class Position {
 public:
  // An empty board, Cho to move; fill it with put_piece, then call finish_setup.
  Position();

  // Places `p` on an empty square `s` (setup only).
  void put_piece(Piece p, Square s);
  // Sets side to move and clocks and computes the key; call once after placing pieces.
  void finish_setup(Color side, int rule50, int fullmove);

  // The piece on `s`, NoPiece if empty.
  Piece piece_on(Square s) const { return board_[s]; }
  // Whose move it is.
  Color side_to_move() const { return side_; }
  // Where the general of `c` stands.
  Square king_square(Color c) const { return king_[c]; }
  // The number of pieces of `c` of type `t` on the board.
  int count(Color c, PieceType t) const { return counts_[c][t]; }
  // The current position's state.
  const StateInfo& state() const { return states_.back(); }
  // The state `plies_back` moves ago (0 = current); plies_back must be <= plies_played().
  const StateInfo& state_back(int plies_back) const { return states_[states_.size() - 1 - plies_back]; }
  // Moves made since finish_setup.
  int plies_played() const { return int(states_.size()) - 1; }
  // The full-move number as FEN writes it.
  int fullmove() const { return 1 + (game_ply_ - (side_ == Han)) / 2; }

  // Plays a pseudo-legal move (a pass when from == to) for the side to move.
  void do_move(Move m);
  // Takes back the last move made with do_move.
  void undo_move();

  // Whether a piece of `by` attacks square `s` (used for the general's safety).
  bool attacked(Square s, Color by) const;
  // Whether the side to move's general is attacked.
  bool in_check() const { return attacked(king_[side_], ~side_); }
  // Whether the two generals stand on one file with nothing between them.
  bool generals_facing() const;
  // Whether the non-pass move `m` leaves the mover's general unattacked and, when
  // `forbid_facing`, the generals not facing. The board is unchanged afterwards.
  bool move_is_safe(Move m, bool forbid_facing);

 private:
  uint64_t compute_key() const;

  std::array<Piece, kNumSquares> board_{};
  std::array<Square, kNumColors> king_{};
  std::array<std::array<int, kNumPieceTypes>, kNumColors> counts_{};
  Color side_ = Cho;
  int game_ply_ = 0;
  std::vector<StateInfo> states_;
};

// Zobrist keys: one per piece code and square, and one for Han to move.
struct Zobrist {
  std::array<std::array<uint64_t, kNumSquares>, kNumPieceCodes> piece_square;
  uint64_t han_to_move;
};
extern const Zobrist kZobrist;

}  // namespace games::janggi
