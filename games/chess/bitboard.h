// 64-bit square sets and the precomputed attack tables behind chess move generation: leaper
// attacks (pawn, knight, king) and slider attacks (bishop, rook) through "fancy" magic
// bitboards, plus the squares between and on the line through any two squares.
// init_bitboards() must run once before any lookup; Position's FEN reader calls it.
#pragma once

#include <bit>
#include <cstdint>

#include "games/chess/types.h"

namespace games::chess {

using Bitboard = uint64_t;

inline constexpr Bitboard kFileA = 0x0101010101010101ULL;
inline constexpr Bitboard kRank1 = 0xFFULL;
constexpr Bitboard file_bb(int file) {
  return kFileA << file;
}
constexpr Bitboard rank_bb(int rank) {
  return kRank1 << (8 * rank);
}
constexpr Bitboard square_bb(Square s) {
  return Bitboard(1) << s;
}

// The lowest square of a non-empty set.
inline Square lsb(Bitboard b) {
  return std::countr_zero(b);
}
// Removes and returns the lowest square of a non-empty set.
inline Square pop_lsb(Bitboard& b) {
  const Square s = lsb(b);
  b &= b - 1;
  return s;
}
// Whether the set holds two or more squares.
constexpr bool more_than_one(Bitboard b) {
  return (b & (b - 1)) != 0;
}
// The number of squares in the set (inline bit arithmetic where the CPU baseline has no popcnt:
// the library call std::popcount makes there is slower).
inline int popcount(Bitboard b) {
#if defined(__POPCNT__)
  return std::popcount(b);
#else
  b = b - ((b >> 1) & 0x5555555555555555ULL);
  b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
  b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return int((b * 0x0101010101010101ULL) >> 56);
#endif
}

// Every square shifted one step north (+8) / south (-8), dropping what falls off the board.
template <int Delta>
constexpr Bitboard shift(Bitboard b) {
  if constexpr (Delta == 8) return b << 8;
  if constexpr (Delta == -8) return b >> 8;
  if constexpr (Delta == 7) return (b & ~kFileA) << 7;       // north-west
  if constexpr (Delta == 9) return (b & ~file_bb(7)) << 9;   // north-east
  if constexpr (Delta == -9) return (b & ~kFileA) >> 9;      // south-west
  if constexpr (Delta == -7) return (b & ~file_bb(7)) >> 7;  // south-east
  return 0;
}

// The squares attacked by all pawns of colour `c` in `pawns`.
template <Color C>
constexpr Bitboard pawn_attacks_bb(Bitboard pawns) {
  if constexpr (C == White) return shift<7>(pawns) | shift<9>(pawns);
  return shift<-7>(pawns) | shift<-9>(pawns);
}

namespace detail {

// One square's magic: attacks = table[((occupied & mask) * magic) >> shift].
struct Magic {
  Bitboard mask;
  Bitboard magic;
  const Bitboard* attacks;
  unsigned shift;

  unsigned index(Bitboard occupied) const { return unsigned(((occupied & mask) * magic) >> shift); }
};

extern Magic rook_magics[64];
extern Magic bishop_magics[64];
extern Bitboard pawn_attacks[kNumColors][64];
extern Bitboard knight_attacks[64];
extern Bitboard king_attacks[64];
extern Bitboard between[64][64];
extern Bitboard line[64][64];

}  // namespace detail

// Builds every table (idempotent and thread-safe; a few milliseconds the first time).
void init_bitboards();

// Squares a pawn of colour `c` on `s` attacks.
inline Bitboard pawn_attacks(Color c, Square s) {
  return detail::pawn_attacks[c][s];
}
// Squares a knight on `s` attacks.
inline Bitboard knight_attacks(Square s) {
  return detail::knight_attacks[s];
}
// Squares a king on `s` attacks.
inline Bitboard king_attacks(Square s) {
  return detail::king_attacks[s];
}
// Squares a bishop on `s` attacks given the occupied squares (blockers included).
inline Bitboard bishop_attacks(Square s, Bitboard occupied) {
  const auto& m = detail::bishop_magics[s];
  return m.attacks[m.index(occupied)];
}
// Squares a rook on `s` attacks given the occupied squares (blockers included).
inline Bitboard rook_attacks(Square s, Bitboard occupied) {
  const auto& m = detail::rook_magics[s];
  return m.attacks[m.index(occupied)];
}
// Squares a queen on `s` attacks given the occupied squares.
inline Bitboard queen_attacks(Square s, Bitboard occupied) {
  return bishop_attacks(s, occupied) | rook_attacks(s, occupied);
}
// Squares strictly between `a` and `b` when they share a rank, file or diagonal, else empty.
inline Bitboard between_bb(Square a, Square b) {
  return detail::between[a][b];
}
// The whole rank, file or diagonal through `a` and `b` (both included), else empty.
inline Bitboard line_bb(Square a, Square b) {
  return detail::line[a][b];
}

}  // namespace games::chess
