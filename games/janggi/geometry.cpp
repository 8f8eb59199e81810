// Builds the janggi move geometry at compile time (see geometry.h).
#include "games/janggi/geometry.h"

namespace games::janggi {
namespace {

constexpr int sign(int x) {
  return (x > 0) - (x < 0);
}
constexpr int abs_of(int x) {
  return x < 0 ? -x : x;
}

constexpr void add_step(Steps& steps, Square to) {
  steps.squares[steps.num_steps++] = uint8_t(to);
}

constexpr void add_leap(Leaps& leaps, Square to, Square block1, Square block2) {
  leaps.leaps[leaps.num_leaps++] = Leap{uint8_t(to), uint8_t(block1), uint8_t(block2)};
}

// Squares from `s` stepping (df, dr); along palace diagonals only while on its points.
constexpr Ray make_ray(Square s, int df, int dr, bool palace_diagonal) {
  Ray ray;
  int f = file_of(s) + df, r = rank_of(s) + dr;
  while (on_board(f, r) && (!palace_diagonal || on_palace_diagonal(make_square(f, r)))) {
    ray.squares[ray.num_squares++] = uint8_t(make_square(f, r));
    f += df;
    r += dr;
  }
  return ray;
}

// The horse (1, 2) leaps blocked at the orthogonal step, and the elephant (2, 3) leaps blocked at
// the orthogonal step and the first diagonal step.
constexpr void add_leapers(Geometry& g, Square s) {
  const int f = file_of(s), r = rank_of(s);
  constexpr int kHorse[8][2] = {{1, 2}, {-1, 2}, {1, -2}, {-1, -2}, {2, 1}, {2, -1}, {-2, 1}, {-2, -1}};
  for (const auto& d : kHorse) {
    if (!on_board(f + d[0], r + d[1])) continue;
    // The horse first steps one point orthogonally along its longer leg.
    const Square block = abs_of(d[1]) == 2 ? make_square(f, r + sign(d[1])) : make_square(f + sign(d[0]), r);
    add_leap(g.horse[s], make_square(f + d[0], r + d[1]), block, block);
  }
  constexpr int kElephant[8][2] = {{2, 3}, {-2, 3}, {2, -3}, {-2, -3}, {3, 2}, {3, -2}, {-3, 2}, {-3, -2}};
  for (const auto& d : kElephant) {
    if (!on_board(f + d[0], r + d[1])) continue;
    const int sf = sign(d[0]), sr = sign(d[1]);
    const bool vertical = abs_of(d[1]) == 3;
    const Square block1 = vertical ? make_square(f, r + sr) : make_square(f + sf, r);
    const Square block2 = vertical ? make_square(f + sf, r + 2 * sr) : make_square(f + 2 * sf, r + sr);
    add_leap(g.elephant[s], make_square(f + d[0], r + d[1]), block1, block2);
  }
}

constexpr void add_palace_steps(Geometry& g, Square s) {
  const int f = file_of(s), r = rank_of(s);
  for (Color c : {Cho, Han}) {
    if (!in_palace(c, s)) continue;
    for (int df = -1; df <= 1; ++df)
      for (int dr = -1; dr <= 1; ++dr) {
        if ((df == 0 && dr == 0) || !on_board(f + df, r + dr)) continue;
        const Square t = make_square(f + df, r + dr);
        const bool diagonal = df != 0 && dr != 0;
        if (in_palace(c, t) && (!diagonal || (on_palace_diagonal(s) && on_palace_diagonal(t))))
          add_step(g.palace_steps[c][s], t);
      }
  }
}

constexpr void add_soldier_steps(Geometry& g, Square s) {
  const int f = file_of(s), r = rank_of(s);
  for (Color c : {Cho, Han}) {
    const int forward = c == Cho ? 1 : -1;
    if (on_board(f, r + forward)) add_step(g.soldier[c][s], make_square(f, r + forward));
    for (int df : {-1, 1}) {
      if (on_board(f + df, r)) add_step(g.soldier[c][s], make_square(f + df, r));
      if (on_board(f + df, r + forward) && on_palace_diagonal(s) &&
          on_palace_diagonal(make_square(f + df, r + forward)))
        add_step(g.soldier[c][s], make_square(f + df, r + forward));
    }
  }
}

constexpr Geometry build_geometry() {
  Geometry g{};
  constexpr int kOrthogonal[4][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};
  constexpr int kDiagonal[4][2] = {{1, 1}, {1, -1}, {-1, -1}, {-1, 1}};
  for (Square s = 0; s < kNumSquares; ++s) {
    for (int d = 0; d < 4; ++d) {
      g.rays[s][d] = make_ray(s, kOrthogonal[d][0], kOrthogonal[d][1], false);
      if (on_palace_diagonal(s)) g.palace_rays[s][d] = make_ray(s, kDiagonal[d][0], kDiagonal[d][1], true);
    }
    add_leapers(g, s);
    add_palace_steps(g, s);
    add_soldier_steps(g, s);
  }
  // Reverse tables: the leaps and soldier steps that land on each square.
  for (Square s = 0; s < kNumSquares; ++s) {
    for (int i = 0; i < g.horse[s].num_leaps; ++i) {
      const Leap& l = g.horse[s].leaps[i];
      add_leap(g.horse_from[l.to], s, l.block1, l.block2);
    }
    for (int i = 0; i < g.elephant[s].num_leaps; ++i) {
      const Leap& l = g.elephant[s].leaps[i];
      add_leap(g.elephant_from[l.to], s, l.block1, l.block2);
    }
    for (Color c : {Cho, Han})
      for (int i = 0; i < g.soldier[c][s].num_steps; ++i)
        add_step(g.soldier_from[c][g.soldier[c][s].squares[i]], s);
  }
  return g;
}

}  // namespace

constinit const Geometry kGeometry = build_geometry();

}  // namespace games::janggi
