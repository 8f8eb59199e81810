// The maximum-likelihood fit of the pool ratings (pool_fit.h): Newton's method on the log-likelihood
// of the logistic model, which is concave, so the fit is unique once each group's scale is fixed.
#include "arena/tournament/pool_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <numeric>

namespace arena::tournament::pool {
namespace {

constexpr double kScale = std::numbers::ln10 / 400.0;  // logistic slope per Elo point
constexpr double kMaxRating = 5000;     // a rating that runs off is held here (see Fit::diverged)
constexpr double kMaxAdvantage = 1000;  // likewise for a first-move advantage
constexpr int kMaxIterations = 200;

// Union-find over players, for the groups linked by games.
int32_t root(std::vector<int32_t>& parent, int32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// The groups of players linked by cells that `use` accepts; numbered in player order.
std::vector<int32_t> groups_of(const Problem& p, const std::vector<bool>& member,
                               const std::function<bool(const Cell&)>& use, int32_t& count) {
  std::vector<int32_t> parent(p.players);
  std::iota(parent.begin(), parent.end(), 0);
  for (const Cell& c : p.cells)
    if (use(c)) parent[root(parent, c.a)] = root(parent, c.b);
  std::vector<int32_t> id(p.players, -1), of_root(p.players, -1);
  count = 0;
  for (int32_t i = 0; i < p.players; ++i) {
    if (!member[i]) continue;
    int32_t& g = of_root[root(parent, i)];
    if (g < 0) g = count++;
    id[i] = g;
  }
  return id;
}

// Solves the symmetric positive definite system m x = g in place (Gaussian elimination with
// partial pivoting); g holds x afterwards.
void solve_linear(std::vector<std::vector<double>>& m, std::vector<double>& g) {
  const size_t n = g.size();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::abs(m[r][col]) > std::abs(m[pivot][col])) pivot = r;
    std::swap(m[col], m[pivot]);
    std::swap(g[col], g[pivot]);
    if (std::abs(m[col][col]) < 1e-300) continue;
    for (size_t r = col + 1; r < n; ++r) {
      const double f = m[r][col] / m[col][col];
      if (f == 0) continue;
      for (size_t k = col; k < n; ++k) m[r][k] -= f * m[col][k];
      g[r] -= f * g[col];
    }
  }
  for (size_t i = n; i-- > 0;) {
    double s = g[i];
    for (size_t k = i + 1; k < n; ++k) s -= m[i][k] * g[k];
    g[i] = std::abs(m[i][i]) < 1e-300 ? 0.0 : s / m[i][i];
  }
}

// The players that won or lost every game among the active ones, purged one at a time (a purge
// can make another player perfect); returns them in the order purged.
std::vector<int32_t> purge_perfect(const Problem& p, std::vector<bool>& active,
                                   std::vector<RatingBound>& bound) {
  std::vector<int32_t> order;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<double> games(p.players, 0), points(p.players, 0);
    for (const Cell& c : p.cells) {
      if (!active[c.a] || !active[c.b]) continue;
      games[c.a] += c.n, games[c.b] += c.n;
      points[c.a] += c.points, points[c.b] += c.n - c.points;
    }
    for (int32_t i = 0; i < p.players && !changed; ++i) {
      if (!active[i] || p.anchor[i] || games[i] == 0) continue;
      if (points[i] != games[i] && points[i] != 0) continue;
      bound[i] = points[i] == 0 ? RatingBound::AtMost : RatingBound::AtLeast;
      active[i] = false;
      order.push_back(i);
      changed = true;
    }
  }
  return order;
}

// Newton's method over the active players' ratings and the fitted advantages. `pinned` players
// (one per group without an anchor) and anchors stay where they are.
void newton(const Problem& p, const std::vector<bool>& active, const std::vector<bool>& pinned, Fit& fit) {
  std::vector<int32_t> index(p.players + p.variants, -1);
  int32_t n = 0;
  for (int32_t i = 0; i < p.players; ++i)
    if (active[i] && !pinned[i] && !p.anchor[i]) index[i] = n++;
  if (!p.advantage)
    for (const Cell& c : p.cells)
      if (active[c.a] && active[c.b] && index[p.players + c.v] < 0) index[p.players + c.v] = n++;
  if (n == 0) return;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    std::vector<std::vector<double>> m(n, std::vector<double>(n, 0));
    std::vector<double> g(n, 0);
    for (const Cell& c : p.cells) {
      if (!active[c.a] || !active[c.b]) continue;
      const double e = expected_score(fit.rating[c.a] - fit.rating[c.b] + fit.advantage[c.v]);
      const double residual = kScale * (c.points - c.n * e), h = kScale * kScale * c.n * e * (1 - e);
      const int32_t ids[3] = {index[c.a], index[c.b], index[p.players + c.v]};
      const double sign[3] = {1, -1, 1};
      for (int x = 0; x < 3; ++x) {
        if (ids[x] < 0) continue;
        g[ids[x]] += sign[x] * residual;
        for (int y = 0; y < 3; ++y)
          if (ids[y] >= 0) m[ids[x]][ids[y]] += sign[x] * sign[y] * h;
      }
    }
    for (int32_t i = 0; i < n; ++i) m[i][i] += 1e-12;
    solve_linear(m, g);
    double largest = 0;
    for (double d : g) largest = std::max(largest, std::abs(d));
    const double step = largest > 400 ? 400 / largest : 1.0;  // damped far from the optimum
    for (int32_t k = 0; k < p.players + p.variants; ++k) {
      if (index[k] < 0) continue;
      double& value = k < p.players ? fit.rating[k] : fit.advantage[k - p.players];
      const double limit = k < p.players ? kMaxRating : kMaxAdvantage;
      value = std::clamp(value + step * g[index[k]], -limit, limit);
      if (std::abs(value) == limit) (k < p.players ? fit.diverged : fit.advantage_clamped) = true;
    }
    if (largest < 1e-7) return;
  }
}

// The rating at which `player`, against the rated opponents, would score `target` points (the
// expected score rises with the rating: bisection).
double rating_for_score(const Problem& p, const Fit& fit, const std::vector<bool>& rated, int32_t player,
                        double target) {
  auto score_at = [&](double r) {
    double s = 0;
    for (const Cell& c : p.cells) {
      if (c.a == player && rated[c.b]) s += c.n * expected_score(r - fit.rating[c.b] + fit.advantage[c.v]);
      if (c.b == player && rated[c.a])
        s += c.n * (1 - expected_score(fit.rating[c.a] - r + fit.advantage[c.v]));
    }
    return s;
  };
  double lo = -2 * kMaxRating, hi = 2 * kMaxRating;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (score_at(mid) < target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Places the purged players back, last purged first, each at the rating it would have with one of
// its games (against the players rated when it was purged) drawn.
void place_back(const Problem& p, const std::vector<int32_t>& purged, std::vector<bool>& rated, Fit& fit) {
  for (auto it = purged.rbegin(); it != purged.rend(); ++it) {
    const int32_t i = *it;
    double games = 0;
    for (const Cell& c : p.cells)
      if ((c.a == i && rated[c.b]) || (c.b == i && rated[c.a])) games += c.n;
    const double target = fit.bound[i] == RatingBound::AtLeast ? games - 0.5 : 0.5;
    fit.rating[i] = rating_for_score(p, fit, rated, i, target);
    rated[i] = true;
  }
}

}  // namespace

double expected_score(double x) {
  return 1.0 / (1.0 + std::exp(-kScale * x));
}

Fit solve(const Problem& p) {
  Fit fit;
  fit.rating.assign(p.players, 0);
  fit.advantage.assign(p.variants, p.advantage.value_or(0));
  fit.bound.assign(p.players, RatingBound::None);
  fit.rated.assign(p.players, false);
  for (const Cell& c : p.cells)
    if (c.n > 0) fit.rated[c.a] = fit.rated[c.b] = true;
  for (int32_t i = 0; i < p.players; ++i)
    if (p.anchor[i]) fit.rating[i] = *p.anchor[i];

  std::vector<bool> active = fit.rated;
  const std::vector<int32_t> purged = purge_perfect(p, active, fit.bound);
  // Each group of active players without an anchor is pinned at its first player, then shifted.
  int32_t active_groups = 0;
  const auto active_group = groups_of(
      p, active, [&](const Cell& c) { return c.n > 0 && active[c.a] && active[c.b]; }, active_groups);
  std::vector<bool> group_anchored(active_groups, false), pinned(p.players, false);
  for (int32_t i = 0; i < p.players; ++i)
    if (active[i] && p.anchor[i]) group_anchored[active_group[i]] = true;
  for (int32_t i = 0; i < p.players; ++i)
    if (active[i] && !group_anchored[active_group[i]]) {
      pinned[i] = true;
      group_anchored[active_group[i]] = true;
    }
  newton(p, active, pinned, fit);

  std::vector<bool> rated = active;
  place_back(p, purged, rated, fit);

  // The final groups (every player with games); those without an anchor get the pool's mean.
  fit.group = groups_of(
      p, fit.rated, [](const Cell& c) { return c.n > 0; }, fit.groups);
  std::vector<double> sum(fit.groups, 0);
  std::vector<int32_t> count(fit.groups, 0);
  std::vector<bool> anchored(fit.groups, false);
  for (int32_t i = 0; i < p.players; ++i) {
    if (!fit.rated[i]) continue;
    sum[fit.group[i]] += fit.rating[i];
    ++count[fit.group[i]];
    if (p.anchor[i]) anchored[fit.group[i]] = true;
  }
  for (int32_t i = 0; i < p.players; ++i)
    if (fit.rated[i] && !anchored[fit.group[i]])
      fit.rating[i] += p.mean - sum[fit.group[i]] / count[fit.group[i]];
  return fit;
}

}  // namespace arena::tournament::pool
