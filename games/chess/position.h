// A chess position as bitboards plus a square-indexed board, with make/unmake of legal
// moves and an incrementally updated Zobrist key. A Position is a plain value: copy it freely.
// Build one with parse_fen (games/chess/fen.h); it never validates moves itself.
//
// Invariant: the en-passant square is set only when the side to move has a legal en-passant
// capture (Stockfish's FEN convention), so equal keys mean equal positions under FIDE 9.2.
// Castling follows Stockfish too: a right names the king and the outermost rook on that side of
// it on the back rank; the king ends on the g- (c-) file and the rook on the f- (d-) file. In
// standard chess that is always king e1/e8 with a rook in the corner.
#pragma once

#include <bit>
#include <cstdint>
#include <utility>

#include "games/chess/bitboard.h"
#include "games/chess/types.h"

namespace games::chess {

// What make_move overwrites and unmake_move restores.
struct UndoInfo {
  uint64_t key;
  Square ep_square;
  Piece captured;
  uint8_t castling;
  int rule50;
};

class Position {
 public:
  // An empty board, white to move, no rights (fill it with put_piece and set_state).
  Position();

  // --- Set-up (used by the FEN reader) ---
  // Places `p` on the empty square `s`.
  void put_piece(Piece p, Square s);
  // Grants the castling right `right` (one CastlingRight bit) with the rook on `rook`; the king
  // must already be on the same back rank.
  void add_castling_right(uint8_t right, Square rook);
  // Sets the side to move, en-passant square (dropped unless a legal capture exists), halfmove
  // clock and fullmove number, and computes the key.
  void set_state(Color side, Square ep_square, int rule50, int fullmove);

  // --- Queries ---
  // The piece on `s`, or NoPiece.
  Piece piece_on(Square s) const { return board_[s]; }
  // Occupied squares: all, or of a colour, a type, a colour and a type, a colour and two types.
  Bitboard pieces() const { return by_color_[White] | by_color_[Black]; }
  Bitboard pieces(Color c) const { return by_color_[c]; }
  Bitboard pieces(PieceType t) const { return by_type_[t]; }
  Bitboard pieces(Color c, PieceType t) const { return by_color_[c] & by_type_[t]; }
  Bitboard pieces(Color c, PieceType a, PieceType b) const {
    return by_color_[c] & (by_type_[a] | by_type_[b]);
  }
  // Where `c`'s king stands (there is always exactly one).
  Square king_square(Color c) const { return lsb(pieces(c, King)); }
  // The side to move.
  Color side_to_move() const { return side_; }
  // The castling rights held, as CastlingRight bits.
  uint8_t castling_rights() const { return castling_; }
  // The rook that castles under `right` (one CastlingRight bit), valid while the right is held.
  Square castling_rook(uint8_t right) const { return castling_rook_[std::countr_zero(right)]; }
  // The square a pawn may capture onto en passant, or kNoSquare.
  Square ep_square() const { return ep_square_; }
  // Plies since the last capture or pawn move (the fifty-move counter).
  int rule50() const { return rule50_; }
  // The move number, starting at 1 and increased after Black's move.
  int fullmove() const { return fullmove_; }
  // The Zobrist key: equal for positions that are the same under the repetition rule.
  uint64_t key() const { return key_; }

  // Pieces of either colour attacking `s`, given the occupied squares `occupied`.
  Bitboard attackers_to(Square s, Bitboard occupied) const;
  // The opposing pieces that give check to the side to move.
  Bitboard checkers() const { return attackers_to(king_square(side_), pieces()) & pieces(~side_); }
  // Whether the side to move is in check.
  bool in_check() const { return checkers() != 0; }
  // Whether the side to move's pawn on `from` may legally capture en passant onto `to`.
  bool ep_capture_is_legal(Square from, Square to) const;

  // --- Moves (the move must be legal in this position) ---
  // Plays `m`, saving what unmake_move needs in `undo`.
  void make_move(Move m, UndoInfo& undo);
  // Takes back `m`, which must be the last move made, with the `undo` make_move filled in.
  void unmake_move(Move m, const UndoInfo& undo);

 private:
  void add_piece(Piece p, Square s);
  void remove_piece(Square s);
  void move_piece(Square from, Square to);
  // Where the castling rook of `us` goes from and to when the king castles onto `king_to`.
  std::pair<Square, Square> castling_rook_move(Color us, Square king_to) const;
  // Whether the side to move has a legal en-passant capture onto `ep`.
  bool has_legal_ep_capture(Square ep) const;
  uint64_t compute_key() const;

  Bitboard by_type_[kNumPieceTypes];
  Bitboard by_color_[kNumColors];
  Piece board_[64];
  Color side_ = White;
  uint8_t castling_ = 0;
  uint8_t castling_keep_[64];  // the rights that survive a move from or to each square
  Square castling_rook_[4] = {kNoSquare, kNoSquare, kNoSquare, kNoSquare};
  Square ep_square_ = kNoSquare;
  int rule50_ = 0;
  int fullmove_ = 1;
  uint64_t key_ = 0;
};

// Zobrist keys: one per (piece, square), castling-rights set, en-passant file, and black to move.
namespace zobrist {
extern uint64_t piece_square[kNumPieceCodes][64];
extern uint64_t castling[16];
extern uint64_t ep_file[8];
extern uint64_t black_to_move;
}  // namespace zobrist

}  // namespace games::chess
