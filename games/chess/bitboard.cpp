// Builds the attack tables declared in bitboard.h. Slider attacks use magic bitboards. The
// magic numbers below were found by the search in init_magics (with the seeds in
// build_tables); at start-up each one is verified against ray-walked reference attacks, and
// only a number that fails is searched for again, so start-up takes milliseconds.
#include "games/chess/bitboard.h"

#include <array>
#include <mutex>
#include <vector>

namespace games::chess {

namespace detail {

Magic rook_magics[64];
Magic bishop_magics[64];
Bitboard pawn_attacks[kNumColors][64];
Bitboard knight_attacks[64];
Bitboard king_attacks[64];
Bitboard between[64][64];
Bitboard line[64][64];

}  // namespace detail

namespace {

// Every rook and bishop attack set, indexed through the magics (102400 + 5248 entries).
Bitboard rook_table[0x19000];
Bitboard bishop_table[0x1480];

constexpr uint64_t kRookMagics[64] = {
    0x1080004008801020ULL, 0x0840092002c03000ULL, 0x1900200010400900ULL, 0x0880100008000480ULL,
    0x4200100420080200ULL, 0x8100020100080400ULL, 0x0200040110886200ULL, 0x0200008040220411ULL,
    0x0404800084400220ULL, 0x0000401000402000ULL, 0x0086001081220440ULL, 0x0408800800100280ULL,
    0x000a001201040820ULL, 0x8848800200840080ULL, 0x4001000100040200ULL, 0x0442000102105084ULL,
    0x9080010020804100ULL, 0x0040404000201009ULL, 0x0000808010002009ULL, 0x2200090021d00100ULL,
    0x0008008008040080ULL, 0x0004004002010040ULL, 0x0011040008015042ULL, 0x00000a0001768104ULL,
    0x0000800080204009ULL, 0x2010004140002001ULL, 0x9800200280100080ULL, 0x1000100080080080ULL,
    0x0442000a00049020ULL, 0x2100040080020080ULL, 0x0800120400900148ULL, 0x0010040a00128541ULL,
    0x2800804000800030ULL, 0x1010002000400041ULL, 0x4000200011004100ULL, 0x0610008410800800ULL,
    0x0400802402800800ULL, 0xc100020080800400ULL, 0x0002000802000401ULL, 0x0182085882000401ULL,
    0x0220204000808000ULL, 0x2860100040024022ULL, 0x0001002004110040ULL, 0x99101042000a0020ULL,
    0x0004080004008080ULL, 0x0010040002008080ULL, 0x2012004881020004ULL, 0x8300842444820011ULL,
    0x0088403882010200ULL, 0x0820400080210100ULL, 0x0110910040a00300ULL, 0x0801100280080480ULL,
    0x0242009008200600ULL, 0x1002000489500200ULL, 0x0040800200010080ULL, 0x0091800041000080ULL,
    0x0000209300488001ULL, 0x04c1002414824001ULL, 0x020020000b001041ULL, 0x7000100004200901ULL,
    0x8002002004100802ULL, 0x30010002084c0007ULL, 0x0888221800813004ULL, 0x4000002840840112ULL,
};
constexpr uint64_t kBishopMagics[64] = {
    0x2048017020910100ULL, 0x0044410424008008ULL, 0x040828a400900000ULL, 0x8002209200022000ULL,
    0x0002021000540002ULL, 0x0021018840000000ULL, 0x00009e8420204002ULL, 0x00a0920110084480ULL,
    0x4003062018010110ULL, 0x0221046812004e09ULL, 0x01e11002958912a0ULL, 0x0000044410804000ULL,
    0x0000821210000080ULL, 0x080201102210a800ULL, 0x0080040411045004ULL, 0x00704a1842021000ULL,
    0x1005061070322800ULL, 0x0018001010410444ULL, 0x0010000800401420ULL, 0x2204002844000800ULL,
    0x2052020412022280ULL, 0x000a020101008208ULL, 0x0040400201042000ULL, 0x03e1082040480410ULL,
    0x1004200004208414ULL, 0x08700400984808c8ULL, 0x0088080004004410ULL, 0x008c0240140100a2ULL,
    0x0008840001822000ULL, 0x0050088001080100ULL, 0x98140840040a2200ULL, 0x3002020900210110ULL,
    0x1004040640206000ULL, 0x1090909000840400ULL, 0x9002444810100020ULL, 0x4000020080080080ULL,
    0x0028020400011010ULL, 0x0290808300020100ULL, 0x8010020882004410ULL, 0x0604010040082c20ULL,
    0x20040104c0801008ULL, 0x6004208424001050ULL, 0x1002840041000800ULL, 0x0200042018000102ULL,
    0xa8002000a0821c00ULL, 0x0040080802201910ULL, 0x0222620444000100ULL, 0x0002080041020088ULL,
    0x1500820110401050ULL, 0x0000492090100080ULL, 0x0900410041100000ULL, 0x0302000420880000ULL,
    0x0010501202020020ULL, 0x0008200490049040ULL, 0x0462080214a40120ULL, 0x2421310102008100ULL,
    0x2400420080884060ULL, 0x0800804406184208ULL, 0x0b0080124a084400ULL, 0x082e082300840412ULL,
    0x6051049040082200ULL, 0xc610211002102101ULL, 0x0000048808010433ULL, 0x0010200804405440ULL,
};

constexpr std::array<std::array<int, 2>, 4> kRookDirs{{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}};
constexpr std::array<std::array<int, 2>, 4> kBishopDirs{{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}};

bool on_board(int file, int rank) {
  return file >= 0 && file < 8 && rank >= 0 && rank < 8;
}

// Slider attacks from `s` along `dirs`, stopping at (and including) the first occupied square.
Bitboard ray_attacks(Square s, Bitboard occupied, const std::array<std::array<int, 2>, 4>& dirs) {
  Bitboard attacks = 0;
  for (const auto& [df, dr] : dirs) {
    int f = file_of(s) + df, r = rank_of(s) + dr;
    while (on_board(f, r)) {
      const Square t = make_square(f, r);
      attacks |= square_bb(t);
      if (occupied & square_bb(t)) break;
      f += df;
      r += dr;
    }
  }
  return attacks;
}

// Leaper attacks from `s` for the given (file, rank) offsets.
template <size_t N>
Bitboard leaper_attacks(Square s, const std::array<std::array<int, 2>, N>& offsets) {
  Bitboard attacks = 0;
  for (const auto& [df, dr] : offsets)
    if (on_board(file_of(s) + df, rank_of(s) + dr))
      attacks |= square_bb(make_square(file_of(s) + df, rank_of(s) + dr));
  return attacks;
}

// xorshift64*: a small deterministic generator for magic candidates.
class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 2685821657736338717ULL;
  }
  // Numbers with about 1/8 of their bits set make good magic candidates.
  uint64_t sparse() { return next() & next() & next(); }

 private:
  uint64_t state_;
};

// Finds a magic for every square (trying `known` first) and fills `table` with the attack sets
// it indexes.
void init_magics(detail::Magic* magics, Bitboard* table, const std::array<std::array<int, 2>, 4>& dirs,
                 uint64_t seed, const uint64_t* known) {
  Prng prng(seed);
  std::vector<Bitboard> occupancies, references;
  std::vector<int> epoch(4096, 0);
  int attempt = 0;
  Bitboard* next_table = table;
  for (Square s = 0; s < 64; ++s) {
    // Edges do not block unless the slider stands on them, so they are left out of the mask.
    const Bitboard edges = ((rank_bb(0) | rank_bb(7)) & ~rank_bb(rank_of(s))) |
                           ((file_bb(0) | file_bb(7)) & ~file_bb(file_of(s)));
    auto& m = magics[s];
    m.mask = ray_attacks(s, 0, dirs) & ~edges;
    m.shift = unsigned(64 - popcount(m.mask));
    m.attacks = next_table;

    // Every subset of the mask (Carry-Rippler enumeration) with its reference attack set.
    occupancies.clear();
    references.clear();
    Bitboard subset = 0;
    do {
      occupancies.push_back(subset);
      references.push_back(ray_attacks(s, subset, dirs));
      subset = (subset - m.mask) & m.mask;
    } while (subset);
    const size_t size = occupancies.size();

    for (bool found = false, first = true; !found; first = false) {
      if (first) {
        m.magic = known[s];
      } else {
        do m.magic = prng.sparse();
        while (popcount((m.magic * m.mask) >> 56) < 6);
      }
      ++attempt;
      found = true;
      for (size_t i = 0; i < size; ++i) {
        const unsigned idx = m.index(occupancies[i]);
        if (epoch[idx] < attempt) {
          epoch[idx] = attempt;
          next_table[idx] = references[i];
        } else if (next_table[idx] != references[i]) {
          found = false;
          break;
        }
      }
    }
    next_table += size;
  }
}

void build_tables() {
  constexpr std::array<std::array<int, 2>, 8> knight{
      {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}};
  constexpr std::array<std::array<int, 2>, 8> king{
      {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}};
  constexpr std::array<std::array<int, 2>, 2> white_pawn{{{-1, 1}, {1, 1}}};
  constexpr std::array<std::array<int, 2>, 2> black_pawn{{{-1, -1}, {1, -1}}};
  for (Square s = 0; s < 64; ++s) {
    detail::knight_attacks[s] = leaper_attacks(s, knight);
    detail::king_attacks[s] = leaper_attacks(s, king);
    detail::pawn_attacks[White][s] = leaper_attacks(s, white_pawn);
    detail::pawn_attacks[Black][s] = leaper_attacks(s, black_pawn);
  }
  init_magics(detail::rook_magics, rook_table, kRookDirs, 0x9E3779B97F4A7C15ULL, kRookMagics);
  init_magics(detail::bishop_magics, bishop_table, kBishopDirs, 0xD1B54A32D192ED03ULL, kBishopMagics);

  for (Square a = 0; a < 64; ++a) {
    for (Square b = 0; b < 64; ++b) {
      detail::between[a][b] = detail::line[a][b] = 0;
      if (a == b) continue;
      for (const auto* dirs : {&kRookDirs, &kBishopDirs}) {
        if (!(ray_attacks(a, 0, *dirs) & square_bb(b))) continue;
        detail::line[a][b] =
            (ray_attacks(a, 0, *dirs) & ray_attacks(b, 0, *dirs)) | square_bb(a) | square_bb(b);
        detail::between[a][b] = ray_attacks(a, square_bb(b), *dirs) & ray_attacks(b, square_bb(a), *dirs);
      }
    }
  }
}

}  // namespace

void init_bitboards() {
  static std::once_flag once;
  std::call_once(once, build_tables);
}

}  // namespace games::chess
