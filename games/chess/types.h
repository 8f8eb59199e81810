// The chess vocabulary: colours, piece types, pieces, squares and the 16-bit move encoding.
// Squares run a1 = 0 .. h8 = 63 (file + 8 * rank). A move packs from, to, a kind and a
// promotion piece; castling is encoded as the king's own two-square move (e1g1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace games::chess {

enum Color : uint8_t { White, Black };
inline constexpr int kNumColors = 2;
constexpr Color operator~(Color c) {
  return Color(c ^ 1);
}

enum PieceType : uint8_t { Pawn, Knight, Bishop, Rook, Queen, King };
inline constexpr int kNumPieceTypes = 6;

// A coloured piece: White pieces 0..5, Black pieces 8..13, NoPiece 6 (never on a bitboard).
enum Piece : uint8_t { NoPiece = 6 };
inline constexpr int kNumPieceCodes = 14;
constexpr Piece make_piece(Color c, PieceType t) {
  return Piece((c << 3) | t);
}
constexpr Color color_of(Piece p) {
  return Color(p >> 3);
}
constexpr PieceType type_of(Piece p) {
  return PieceType(p & 7);
}

using Square = int;  // 0..63, or kNoSquare
inline constexpr Square kNoSquare = 64;
constexpr int file_of(Square s) {
  return s & 7;
}
constexpr int rank_of(Square s) {
  return s >> 3;
}
constexpr Square make_square(int file, int rank) {
  return rank * 8 + file;
}
// The rank as seen from `c`'s side of the board (0 = own back rank).
constexpr int relative_rank(Color c, Square s) {
  return c == White ? rank_of(s) : 7 - rank_of(s);
}
// One step forward for a pawn of colour `c`.
constexpr int pawn_push(Color c) {
  return c == White ? 8 : -8;
}
// The square's name, e.g. "e4".
inline std::string square_name(Square s) {
  return {char('a' + file_of(s)), char('1' + rank_of(s))};
}
// Reads a square name such as "e4"; nullopt unless it is exactly a file a-h and a rank 1-8.
inline std::optional<Square> parse_square(std::string_view text) {
  if (text.size() != 2 || text[0] < 'a' || text[0] > 'h' || text[1] < '1' || text[1] > '8')
    return std::nullopt;
  return make_square(text[0] - 'a', text[1] - '1');
}

// Castling rights as four bits.
enum CastlingRight : uint8_t {
  WhiteKingSide = 1,
  WhiteQueenSide = 2,
  BlackKingSide = 4,
  BlackQueenSide = 8,
  AllCastling = 15,
};

// What a move does beyond moving one piece from `from` to `to`.
enum class MoveKind : uint8_t { Normal, Promotion, EnPassant, Castling };

// A move in 16 bits: to (6) | from (6) << 6 | kind (2) << 12 | promotion piece - Knight (2) << 14.
class Move {
 public:
  constexpr Move() = default;
  constexpr Move(Square from, Square to, MoveKind kind = MoveKind::Normal, PieceType promo = Knight)
      : bits_(uint16_t(to | (from << 6) | (int(kind) << 12) | ((promo - Knight) << 14))) {}

  constexpr Square from() const { return (bits_ >> 6) & 63; }
  constexpr Square to() const { return bits_ & 63; }
  constexpr MoveKind kind() const { return MoveKind((bits_ >> 12) & 3); }
  // The piece a pawn becomes; meaningful only for MoveKind::Promotion.
  constexpr PieceType promotion() const { return PieceType(((bits_ >> 14) & 3) + Knight); }
  constexpr uint16_t raw() const { return bits_; }
  constexpr bool is_null() const { return bits_ == 0; }
  constexpr bool operator==(const Move&) const = default;

 private:
  uint16_t bits_ = 0;
};

}  // namespace games::chess
