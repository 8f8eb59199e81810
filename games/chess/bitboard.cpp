// Builds the attack tables declared in bitboard.h. Slider attacks use magic bitboards whose
// magic numbers are searched for at start-up with a fixed-seed generator, so the tables are
// the same on every run; each candidate is verified against ray-walked reference attacks.
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

// Finds a magic for every square and fills `table` with the attack sets it indexes.
void init_magics(detail::Magic* magics, Bitboard* table, const std::array<std::array<int, 2>, 4>& dirs,
                 uint64_t seed) {
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

    for (bool found = false; !found;) {
      do m.magic = prng.sparse();
      while (popcount((m.magic * m.mask) >> 56) < 6);
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
  init_magics(detail::rook_magics, rook_table, kRookDirs, 0x9E3779B97F4A7C15ULL);
  init_magics(detail::bishop_magics, bishop_table, kBishopDirs, 0xD1B54A32D192ED03ULL);

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
