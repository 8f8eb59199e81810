// Internal to the pool ratings (pool_ratings.h): the games as cells of a table, and the one fit of
// the logistic model over them that both the ratings and each of their simulations run.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "arena/tournament/pool_ratings.h"

namespace arena::tournament::pool {

// The games of one pairing in one variant with `a` moving first: n games, a's points, the draws.
struct Cell {
  int32_t a = 0, b = 0, v = 0;
  double n = 0, points = 0, draws = 0;
};

struct Problem {
  int32_t players = 0, variants = 0;
  std::vector<Cell> cells;
  std::vector<std::optional<double>> anchor;  // per player
  double mean = 0;
  std::optional<double> advantage;  // the same fixed first-move advantage for every variant
};

struct Fit {
  std::vector<double> rating;      // per player (meaningless where !rated)
  std::vector<double> advantage;   // per variant
  std::vector<RatingBound> bound;  // per player
  std::vector<bool> rated;         // the player has games
  std::vector<int32_t> group;      // per player: its group (players linked by games)
  int32_t groups = 0;
  bool diverged = false;           // a rating ran off to the clamp: a group won or lost everything
  bool advantage_clamped = false;  // a variant's first movers won or lost everything
};

// Expected score of the first mover at rating difference `x` (first-move advantage included).
double expected_score(double x);

// The maximum-likelihood fit of `problem`: perfect winners and losers purged and placed back as
// bounds; each group's scale fixed by its anchors or, without one, by `problem.mean`.
Fit solve(const Problem& problem);

}  // namespace arena::tournament::pool
