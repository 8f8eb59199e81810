// The janggi vocabulary: sides, piece types, pieces, squares and moves.
// Squares run a1 = 0 .. i10 = 89 (file + 9 * rank); rank 1 is Cho's back rank. Cho (blue) is
// Fairy-Stockfish's "white": uppercase in FEN, moves first, sits at the bottom. A pass is the
// general's move from its own square to that square (UCI "e2e2").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace games::janggi {

enum Color : uint8_t { Cho, Han };
inline constexpr int kNumColors = 2;
constexpr Color operator~(Color c) {
  return Color(c ^ 1);
}

// Piece types; the values index tables and the counting weights.
enum PieceType : uint8_t { NoType, General, Guard, Elephant, Horse, Chariot, Cannon, Soldier };
inline constexpr int kNumPieceTypes = 8;

// A coloured piece: type | color << 3, with 0 for an empty square.
enum Piece : uint8_t { NoPiece = 0 };
inline constexpr int kNumPieceCodes = 16;
constexpr Piece make_piece(Color c, PieceType t) {
  return Piece((c << 3) | t);
}
constexpr Color color_of(Piece p) {
  return Color(p >> 3);
}
constexpr PieceType type_of(Piece p) {
  return PieceType(p & 7);
}

inline constexpr int kNumFiles = 9;
inline constexpr int kNumRanks = 10;
inline constexpr int kNumSquares = kNumFiles * kNumRanks;

using Square = int;  // 0..89
constexpr int file_of(Square s) {
  return s % kNumFiles;
}
constexpr int rank_of(Square s) {
  return s / kNumFiles;
}
constexpr Square make_square(int file, int rank) {
  return rank * kNumFiles + file;
}
constexpr bool on_board(int file, int rank) {
  return file >= 0 && file < kNumFiles && rank >= 0 && rank < kNumRanks;
}

// Whether `s` is inside the palace of `c` (files d-f; ranks 1-3 for Cho, 8-10 for Han).
constexpr bool in_palace(Color c, Square s) {
  const int f = file_of(s), r = rank_of(s);
  return f >= 3 && f <= 5 && (c == Cho ? r <= 2 : r >= 7);
}
// Whether `s` is a corner or the centre of either palace, the points joined by its diagonals.
constexpr bool on_palace_diagonal(Square s) {
  const int f = file_of(s), r = rank_of(s);
  const int rr = r >= 7 ? r - 7 : r;
  if (r > 2 && r < 7) return false;
  return (f == 4 && rr == 1) || ((f == 3 || f == 5) && (rr == 0 || rr == 2));
}

// The square's UCI name, e.g. "e2" or "a10".
inline std::string square_name(Square s) {
  std::string name(1, char('a' + file_of(s)));
  return name + std::to_string(rank_of(s) + 1);
}

// A move: from and to squares; from == to is a pass (only ever the mover's general square).
struct Move {
  uint8_t from = 0;
  uint8_t to = 0;

  constexpr bool is_pass() const { return from == to; }
  friend constexpr bool operator==(Move a, Move b) = default;
};

// The UCI text of a move, e.g. "b1c3", "a10a9", or "e2e2" for a pass.
inline std::string move_name(Move m) {
  return square_name(m.from) + square_name(m.to);
}

// The English name of a piece type ("horse"), for messages.
inline std::string_view piece_type_name(PieceType t) {
  constexpr std::string_view kNames[] = {"none",  "general", "guard",  "elephant",
                                         "horse", "chariot", "cannon", "soldier"};
  return kNames[t & 7];
}

// The FEN letter of a piece (K A B N R C P, uppercase for Cho), '.' for none.
inline char piece_char(Piece p) {
  constexpr char kLetters[] = ".KABNRCP";
  const char c = kLetters[type_of(p)];
  return p == NoPiece ? '.' : color_of(p) == Cho ? c : char(c - 'A' + 'a');
}

// Reads a FEN piece letter (K A B N R C P, with E and H accepted for elephant and horse).
inline std::optional<Piece> piece_from_char(char c) {
  const Color color = (c >= 'a' && c <= 'z') ? Han : Cho;
  switch (c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c) {
    case 'K':
      return make_piece(color, General);
    case 'A':
      return make_piece(color, Guard);
    case 'B':
    case 'E':
      return make_piece(color, Elephant);
    case 'N':
    case 'H':
      return make_piece(color, Horse);
    case 'R':
      return make_piece(color, Chariot);
    case 'C':
      return make_piece(color, Cannon);
    case 'P':
      return make_piece(color, Soldier);
    default:
      return std::nullopt;
  }
}

}  // namespace games::janggi
