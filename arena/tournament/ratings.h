// Match statistics as fastchess reports them: the trinomial (win/draw/loss) and pentanomial
// (colour-swapped pair) models of the score, Elo and normalized Elo with their 95% error, the
// likelihood of superiority, and the generalized SPRT log-likelihood ratio (fastchess's default
// "normalized" model) with its bounds ln(beta/(1-alpha)) and ln((1-beta)/alpha).
//
// Score s in [0, 1]; Elo = -400 log10(1/s - 1); the error is half the Elo width of
// s +- 1.959964 sqrt(var / n) (n games, or n pairs for the pentanomial model); nElo =
// (s - 0.5) / sqrt(var) * 800 / ln 10 (trinomial; sqrt(2 var) per pair for the pentanomial
// model); LOS = (1 - erf(-(s - 0.5) / sqrt(2 var / n))) / 2.
#pragma once

#include <cstdint>

namespace arena::tournament {

// Outcomes of colour-swapped pairs from one player's side: LL = lost both, LD = a loss and a
// draw, WL = a win and a loss, DD = two draws, WD = a win and a draw, WW = won both.
struct Pentanomial {
  int32_t ll = 0, ld = 0, wl = 0, dd = 0, wd = 0, ww = 0;

  // Pairs counted.
  int32_t pairs() const { return ll + ld + wl + dd + wd + ww; }
  // Adds one pair scored `points` (0, 0.5, 1, 1.5 or 2) with `draws` draws in it (1.0 with two
  // draws is DD, with none WL).
  void add_pair(double points, int32_t draws);
  // The same counts from the opponent's side.
  Pentanomial inverted() const { return {ww, wd, wl, dd, ld, ll}; }
};

// One player's (or one side of a match's) results.
struct ScoreStats {
  int32_t wins = 0, draws = 0, losses = 0;
  Pentanomial penta;

  int32_t games() const { return wins + draws + losses; }
  double points() const { return wins + 0.5 * draws; }
  // Draws over games, 0..1 (0 without games).
  double draw_ratio() const { return games() ? double(draws) / games() : 0.0; }
  // Pairs with a 1-1 score (WL + DD) over pairs, 0..1: fastchess's pentanomial draw ratio.
  double pair_draw_ratio() const { return penta.pairs() ? double(penta.wl + penta.dd) / penta.pairs() : 0.0; }
};

// A rating estimate. `valid` is false without observations or when the variance is zero; elo and
// its bounds are infinite for a score of 0 or 1 (as fastchess prints them).
struct EloEstimate {
  bool valid = false;
  double score = 0;     // mean score per game
  double variance = 0;  // per game (trinomial) or per pair (pentanomial, in points per game)
  double elo = 0;
  double elo_error = 0;
  double nelo = 0;
  double nelo_error = 0;
  double los = 0;  // likelihood of superiority, 0..1
};

// The trinomial model over wins, draws and losses.
EloEstimate elo_trinomial(int32_t wins, int32_t draws, int32_t losses);
// The pentanomial model over colour-swapped pairs.
EloEstimate elo_pentanomial(const Pentanomial& penta);
// Pentanomial when `stats` has pairs, trinomial otherwise (fastchess reports pentanomial).
EloEstimate elo_estimate(const ScoreStats& stats);

// Elo of a score 0..1.
double score_to_elo(double score);

struct SprtBounds {
  double lower = 0;  // ln(beta / (1 - alpha)): at or below, accept H0 (elo0)
  double upper = 0;  // ln((1 - beta) / alpha): at or above, accept H1 (elo1)
};
SprtBounds sprt_bounds(double alpha, double beta);

enum class SprtDecision { Continue, AcceptH0, AcceptH1 };
SprtDecision sprt_decide(double llr, const SprtBounds& bounds);

// Log-likelihood ratio of H1 (normalized Elo elo1) over H0 (elo0) for the trinomial counts, as
// fastchess's normalized generalized SPRT (a zero count is regularized to 0.001).
double sprt_llr_trinomial(int32_t wins, int32_t draws, int32_t losses, double elo0, double elo1);
// The same for pentanomial pair counts (WL and DD share the 1-point bucket).
double sprt_llr_pentanomial(const Pentanomial& penta, double elo0, double elo1);

}  // namespace arena::tournament
