// Ratings of every player at once over every game, as Ordo computes them: the maximum-likelihood
// fit of the logistic (Elo) model, in which a game between ratings ra (moving first) and rb has
// the expected score E = 1 / (1 + 10^(-(ra - rb + w) / 400)) for the first mover, w being the
// first-move advantage of the game's variant (white in chess, Cho in janggi): set (0 by default, as
// Ordo without -W; colour-swapped pairs make it cancel out of the ratings) or fitted per variant
// (worth it with hundreds of games). Draws count as half a point. At the fit every player's expected score
// equals its score.
//
// The scale is fixed by anchors (named players held at given ratings) or, without any, by the
// pool's mean. Players who won or lost every game (Ordo's "perfect winners and losers") have no
// finite rating: they are left out of the fit and placed back with the rating they would have had
// with one of those games drawn, as a floor (won all) or a ceiling (lost all).
//
// Error bars come from seeded simulations, as Ordo's -s: every game is replayed from the fitted
// ratings (win, draw, loss drawn with a draw rate fitted to the observed draws), the pool refitted,
// and the spread of each rating around the reference (the anchors, else the pool's mean) taken at
// the confidence level. The same simulations give the likelihood-of-superiority matrix.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace arena::tournament {

// One finished game: `first` moved first; `score` is the first mover's (1, 0.5 or 0).
struct PoolGame {
  std::string variant, first, second;
  double score = 0.5;
};

struct PoolRatingOptions {
  std::map<std::string, double> anchors;             // players held at these ratings
  double pool_mean = 0;                              // the mean rating when there is no anchor
  std::optional<double> first_move_advantage = 0.0;  // Elo, every variant; nullopt = fitted per variant
  int32_t simulations = 1000;                        // 0 = no error bars and no LOS matrix
  double confidence = 0.95;                          // of the error bars
  uint64_t seed = 1;                                 // of the simulations
};

// A rating that is only a bound: a player who won every game is at least (AtLeast) its rating, one
// who lost every game at most (AtMost).
enum class RatingBound { None, AtLeast, AtMost };

struct PoolRating {
  std::string name;
  double rating = 0;
  double error = 0;  // +- at the confidence level; NaN without simulations; 0 for an anchor
  RatingBound bound = RatingBound::None;
  bool anchored = false;
  int32_t games = 0, wins = 0, draws = 0, losses = 0;
  double points = 0;
  double opponents_mean = 0;  // mean rating of its opponents over its games
  int32_t group = 0;          // index into PoolRatings::groups
};

struct FirstMoveAdvantage {
  std::string variant;
  double elo = 0;
  double error = 0;  // NaN without simulations, 0 when set
  bool fitted = false;
  int32_t games = 0;
  double first_score = 0;  // the first movers' mean score
};

struct PoolRatings {
  std::vector<PoolRating> players;  // best first; players without games are left out
  std::vector<FirstMoveAdvantage> advantages;
  double draw_rate_equal = 0;  // the simulations' draw rate between equal players
  int32_t simulations = 0;
  double confidence = 0.95;
  // los[i][j]: the likelihood that players[i] is stronger than players[j], 0..1 (empty without
  // simulations).
  std::vector<std::vector<double>> los;
  // The players' groups: more than one when some never met, directly or through others; their
  // ratings are then comparable only within a group.
  std::vector<std::vector<std::string>> groups;
  std::vector<std::string> warnings;
  std::string reference;  // "pool mean 0" or "anchored: random = 0"
  int32_t games = 0;
};

// Fits the ratings of every player of `games`. An anchor that played no game is a warning.
PoolRatings fit_pool_ratings(const std::vector<PoolGame>& games, const PoolRatingOptions& options);

}  // namespace arena::tournament
