// Elo, nElo, LOS and the normalized generalized SPRT (see ratings.h for the formulas).
#include "arena/tournament/ratings.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace arena::tournament {
namespace {

constexpr double kZ95 = 1.959963984540054;  // two-sided 95% normal quantile
const double kNeloScale = 800.0 / std::log(10.0);

// A model's outcomes: the score of each bucket and its observed frequency.
template <size_t N>
struct Distribution {
  std::array<double, N> scores;
  std::array<double, N> probs;
};

template <size_t N>
double mean_of(const std::array<double, N>& x, const std::array<double, N>& p) {
  double m = 0;
  for (size_t i = 0; i < N; ++i) m += x[i] * p[i];
  return m;
}

// Elo estimate from a score and variance per observation over n observations; `nelo_factor` is 1
// per game and sqrt(2) per pair.
EloEstimate estimate(double score, double variance, double n, double nelo_factor) {
  EloEstimate e;
  e.score = score;
  e.variance = variance;
  if (n <= 0) return e;
  const double sd = std::sqrt(variance / n);
  const double hi = score + kZ95 * sd, lo = score - kZ95 * sd;
  e.elo = score_to_elo(score);
  e.elo_error = (score_to_elo(hi) - score_to_elo(lo)) / 2.0;
  if (variance > 0) {
    const double scale = kNeloScale / (nelo_factor * std::sqrt(variance));
    e.nelo = (score - 0.5) * scale;
    e.nelo_error = ((hi - 0.5) * scale - (lo - 0.5) * scale) / 2.0;
    e.los = (1.0 - std::erf(-(score - 0.5) / std::sqrt(2.0 * variance / n))) / 2.0;
    e.valid = true;
  } else {
    e.los = score > 0.5 ? 1.0 : score < 0.5 ? 0.0 : 0.5;
  }
  return e;
}

// The root of a strictly decreasing f on the open interval (a, b), by bisection.
template <typename F>
double decreasing_root(F f, double a, double b) {
  for (int i = 0; i < 200 && b - a > 1e-15 * std::max(1.0, std::abs(a) + std::abs(b)); ++i) {
    const double mid = 0.5 * (a + b);
    if (f(mid) > 0)
      a = mid;
    else
      b = mid;
  }
  return 0.5 * (a + b);
}

// The distribution closest (by likelihood) to the observed one whose normalized score
// (mu - 0.5) / sigma equals t_star: the fixed-point iteration of Van den Bergh, "Comments on
// normalized Elo", section 4.1, starting from the uniform distribution.
template <size_t N>
std::array<double, N> normalized_mle(const Distribution<N>& d, double t_star) {
  std::array<double, N> p;
  p.fill(1.0 / N);
  for (int iteration = 0; iteration < 10; ++iteration) {
    const double mu = mean_of(d.scores, p);
    double var = 0;
    for (size_t i = 0; i < N; ++i) var += p[i] * (d.scores[i] - mu) * (d.scores[i] - mu);
    const double sigma = std::sqrt(var);
    std::array<double, N> phi;
    for (size_t i = 0; i < N; ++i) {
      const double z = (d.scores[i] - mu) / sigma;
      phi[i] = d.scores[i] - 0.5 - 0.5 * t_star * sigma * (1.0 + z * z);
    }
    const double u = *std::min_element(phi.begin(), phi.end());
    const double v = *std::max_element(phi.begin(), phi.end());
    // sum_i phat_i phi_i / (1 + theta phi_i) = 0 for theta in (-1/v, -1/u).
    const double theta = decreasing_root(
        [&](double x) {
          double r = 0;
          for (size_t i = 0; i < N; ++i) r += d.probs[i] * phi[i] / (1.0 + x * phi[i]);
          return r;
        },
        -1.0 / v, -1.0 / u);
    double max_diff = 0;
    for (size_t i = 0; i < N; ++i) {
      const double next = d.probs[i] / (1.0 + theta * phi[i]);
      max_diff = std::max(max_diff, std::abs(next - p[i]));
      p[i] = next;
    }
    if (max_diff < 1e-4) break;
  }
  return p;
}

template <size_t N>
double normalized_llr(double total, const Distribution<N>& d, double t0, double t1) {
  const auto p0 = normalized_mle(d, t0);
  const auto p1 = normalized_mle(d, t1);
  std::array<double, N> lpr;
  for (size_t i = 0; i < N; ++i) lpr[i] = std::log(p1[i]) - std::log(p0[i]);
  return total * mean_of(lpr, d.probs);
}

double regularize(int32_t count) {
  return count == 0 ? 1e-3 : double(count);
}

}  // namespace

void Pentanomial::add_pair(double points, int32_t draws) {
  if (points <= 0.25)
    ++ll;
  else if (points <= 0.75)
    ++ld;
  else if (points <= 1.25)
    draws > 0 ? ++dd : ++wl;
  else if (points <= 1.75)
    ++wd;
  else
    ++ww;
}

double score_to_elo(double score) {
  if (score <= 0) return -std::numeric_limits<double>::infinity();
  if (score >= 1) return std::numeric_limits<double>::infinity();
  return -400.0 * std::log10(1.0 / score - 1.0);
}

EloEstimate elo_trinomial(int32_t wins, int32_t draws, int32_t losses) {
  const double n = wins + draws + losses;
  if (n <= 0) return {};
  const double w = wins / n, d = draws / n, l = losses / n;
  const double s = w + 0.5 * d;
  const double var = w * (1 - s) * (1 - s) + d * (0.5 - s) * (0.5 - s) + l * s * s;
  return estimate(s, var, n, 1.0);
}

EloEstimate elo_pentanomial(const Pentanomial& p) {
  const double n = p.pairs();
  if (n <= 0) return {};
  const double ll = p.ll / n, ld = p.ld / n, mid = (p.wl + p.dd) / n, wd = p.wd / n, ww = p.ww / n;
  const double s = 0.25 * ld + 0.5 * mid + 0.75 * wd + ww;
  const double var = ll * s * s + ld * (0.25 - s) * (0.25 - s) + mid * (0.5 - s) * (0.5 - s) +
                     wd * (0.75 - s) * (0.75 - s) + ww * (1 - s) * (1 - s);
  return estimate(s, var, n, std::sqrt(2.0));
}

EloEstimate elo_estimate(const ScoreStats& stats) {
  if (stats.penta.pairs() > 0) return elo_pentanomial(stats.penta);
  return elo_trinomial(stats.wins, stats.draws, stats.losses);
}

SprtBounds sprt_bounds(double alpha, double beta) {
  return {std::log(beta / (1 - alpha)), std::log((1 - beta) / alpha)};
}

SprtDecision sprt_decide(double llr, const SprtBounds& bounds) {
  if (llr >= bounds.upper) return SprtDecision::AcceptH1;
  if (llr <= bounds.lower) return SprtDecision::AcceptH0;
  return SprtDecision::Continue;
}

double sprt_llr_trinomial(int32_t wins, int32_t draws, int32_t losses, double elo0, double elo1) {
  const double l = regularize(losses), d = regularize(draws), w = regularize(wins);
  const double total = l + d + w;
  const Distribution<3> dist{{0.0, 0.5, 1.0}, {l / total, d / total, w / total}};
  return normalized_llr(total, dist, elo0 / kNeloScale, elo1 / kNeloScale);
}

double sprt_llr_pentanomial(const Pentanomial& p, double elo0, double elo1) {
  const double ll = regularize(p.ll), ld = regularize(p.ld), mid = regularize(p.wl + p.dd);
  const double wd = regularize(p.wd), ww = regularize(p.ww);
  const double total = ll + ld + mid + wd + ww;
  const Distribution<5> dist{{0.0, 0.25, 0.5, 0.75, 1.0},
                             {ll / total, ld / total, mid / total, wd / total, ww / total}};
  const double k = std::sqrt(2.0) / kNeloScale;
  return normalized_llr(total, dist, elo0 * k, elo1 * k);
}

}  // namespace arena::tournament
