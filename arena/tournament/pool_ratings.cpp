// Pool ratings (pool_ratings.h): the games tabulated, the fit (pool_fit.cpp), the simulations for
// the error bars and the likelihood of superiority, and the warnings.
#include "arena/tournament/pool_ratings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include "arena/tournament/pool_fit.h"

namespace arena::tournament {
namespace {

struct Table {
  std::vector<std::string> names, variants;
  pool::Problem problem;
};

Table tabulate(const std::vector<PoolGame>& games, const PoolRatingOptions& options) {
  Table t;
  std::map<std::string, int32_t> player, variant;
  for (const PoolGame& g : games) {
    player.emplace(g.first, 0), player.emplace(g.second, 0);
    variant.emplace(g.variant, 0);
  }
  for (auto& [name, id] : player) {
    id = int32_t(t.names.size());
    t.names.push_back(name);
  }
  for (auto& [name, id] : variant) {
    id = int32_t(t.variants.size());
    t.variants.push_back(name);
  }
  pool::Problem& p = t.problem;
  p.players = int32_t(t.names.size());
  p.variants = int32_t(t.variants.size());
  p.mean = options.pool_mean;
  p.advantage = options.first_move_advantage;
  p.anchor.resize(p.players);
  for (const auto& [name, rating] : options.anchors)
    if (auto it = player.find(name); it != player.end()) p.anchor[it->second] = rating;
  std::map<std::tuple<int32_t, int32_t, int32_t>, pool::Cell> cells;
  for (const PoolGame& g : games) {
    const int32_t a = player[g.first], b = player[g.second], v = variant[g.variant];
    pool::Cell& c = cells[{a, b, v}];
    c.a = a, c.b = b, c.v = v;
    c.n += 1;
    c.points += g.score;
    c.draws += g.score == 0.5 ? 1 : 0;
  }
  for (auto& [key, c] : cells) p.cells.push_back(c);
  return t;
}

// The draw rate between equal players that makes the expected draws (draw probability 4 d E (1 - E)
// in a game of expected score E) equal the observed ones.
double fitted_draw_rate(const pool::Problem& p, const pool::Fit& fit) {
  double expected = 0, observed = 0;
  for (const pool::Cell& c : p.cells) {
    const double e = pool::expected_score(fit.rating[c.a] - fit.rating[c.b] + fit.advantage[c.v]);
    expected += c.n * 4 * e * (1 - e);
    observed += c.draws;
  }
  return expected > 0 ? std::clamp(observed / expected, 0.0, 1.0) : 0.0;
}

// `p` with every game replayed from the fitted ratings.
pool::Problem simulate(const pool::Problem& p, const pool::Fit& fit, double draw_rate, std::mt19937_64& rng) {
  pool::Problem sim = p;
  for (pool::Cell& c : sim.cells) {
    const double e = pool::expected_score(fit.rating[c.a] - fit.rating[c.b] + fit.advantage[c.v]);
    const double draw = std::min(4 * draw_rate * e * (1 - e), 2 * std::min(e, 1 - e));
    const double win = std::clamp(e - draw / 2, 0.0, 1.0);
    const auto n = int64_t(c.n);
    const int64_t wins = std::binomial_distribution<int64_t>(n, win)(rng);
    const double draw_given_no_win = win < 1 ? std::clamp(draw / (1 - win), 0.0, 1.0) : 0.0;
    const int64_t draws = std::binomial_distribution<int64_t>(n - wins, draw_given_no_win)(rng);
    c.points = double(wins) + 0.5 * double(draws);
    c.draws = double(draws);
  }
  return sim;
}

// The standard normal quantile of `p` (bisection on the distribution function).
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double stdev(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  double mean = 0, sq = 0;
  for (double x : xs) mean += x;
  mean /= double(xs.size());
  for (double x : xs) sq += (x - mean) * (x - mean);
  return std::sqrt(sq / double(xs.size() - 1));
}

// The simulations' spread: each rating's and advantage's error, and the LOS matrix in `order`.
void add_errors(const Table& t, const pool::Fit& fit, const PoolRatingOptions& options,
                const std::vector<int32_t>& order, PoolRatings& out) {
  const pool::Problem& p = t.problem;
  const double draw_rate = out.draw_rate_equal;
  std::mt19937_64 rng(options.seed);
  std::vector<std::vector<double>> ratings(p.players), advantages(p.variants);
  for (int32_t s = 0; s < options.simulations; ++s) {
    const pool::Fit f = pool::solve(simulate(p, fit, draw_rate, rng));
    for (int32_t i = 0; i < p.players; ++i) ratings[i].push_back(f.rating[i]);
    for (int32_t v = 0; v < p.variants; ++v) advantages[v].push_back(f.advantage[v]);
  }
  const double z = normal_quantile(0.5 + options.confidence / 2);
  for (size_t k = 0; k < order.size(); ++k) out.players[k].error = z * stdev(ratings[order[k]]);
  for (int32_t v = 0; v < p.variants; ++v) out.advantages[v].error = z * stdev(advantages[v]);
  const size_t n = order.size();
  out.los.assign(n, std::vector<double>(n, 0.5));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      std::vector<double> diff;
      for (int32_t s = 0; s < options.simulations; ++s)
        diff.push_back(ratings[order[i]][s] - ratings[order[j]][s]);
      const double mean = out.players[i].rating - out.players[j].rating, sd = stdev(diff);
      out.los[i][j] = sd > 0 ? 0.5 * std::erfc(-mean / sd / std::sqrt(2.0))
                             : (mean > 0   ? 1.0
                                : mean < 0 ? 0.0
                                           : 0.5);
    }
}

PoolRating player_row(const Table& t, const pool::Fit& fit, int32_t i) {
  PoolRating r;
  r.name = t.names[i];
  r.rating = fit.rating[i];
  r.bound = fit.bound[i];
  r.anchored = t.problem.anchor[i].has_value();
  r.group = fit.group[i];
  r.error = std::nan("");
  double opponents = 0;
  for (const pool::Cell& c : t.problem.cells) {
    if (c.a != i && c.b != i) continue;
    const bool first = c.a == i;
    const double points = first ? c.points : c.n - c.points, wins = (points * 2 - c.draws) / 2;
    r.games += int32_t(c.n);
    r.points += points;
    r.draws += int32_t(c.draws);
    r.wins += int32_t(std::lround(wins));
    opponents += c.n * fit.rating[first ? c.b : c.a];
  }
  r.losses = r.games - r.wins - r.draws;
  r.opponents_mean = r.games ? opponents / r.games : 0;
  return r;
}

void add_warnings(const Table& t, const pool::Fit& fit, const PoolRatingOptions& options, PoolRatings& out) {
  for (const auto& [name, rating] : options.anchors)
    if (std::find(t.names.begin(), t.names.end(), name) == t.names.end())
      out.warnings.push_back(fmt::format("anchor '{}' played no game: it fixes no rating", name));
  if (out.groups.size() > 1) {
    std::string list;
    for (const auto& g : out.groups)
      list += (list.empty() ? "" : " | ") + fmt::format("{}", fmt::join(g, ", "));
    out.warnings.push_back(fmt::format(
        "the players fall into {} groups that never met, directly or through others ({}): ratings "
        "compare only within a group",
        out.groups.size(), list));
  }
  if (fit.diverged)
    out.warnings.push_back(
        "some ratings did not converge (held at +-5000): a group of players won or lost every game "
        "against the rest; games between the groups would fix it");
  if (fit.advantage_clamped)
    out.warnings.push_back(
        "a first-move advantage did not converge: the first movers of a variant won or lost every game");
}

}  // namespace

PoolRatings fit_pool_ratings(const std::vector<PoolGame>& games, const PoolRatingOptions& options) {
  const Table t = tabulate(games, options);
  const pool::Fit fit = pool::solve(t.problem);
  PoolRatings out;
  out.games = int32_t(games.size());
  out.confidence = options.confidence;
  out.simulations = options.simulations;
  std::vector<int32_t> order;
  for (int32_t i = 0; i < t.problem.players; ++i)
    if (fit.rated[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return fit.rating[a] > fit.rating[b]; });
  for (int32_t i : order) out.players.push_back(player_row(t, fit, i));
  out.groups.resize(fit.groups);
  for (int32_t i : order) out.groups[fit.group[i]].push_back(t.names[i]);
  for (int32_t v = 0; v < t.problem.variants; ++v) {
    FirstMoveAdvantage a{t.variants[v], fit.advantage[v], options.first_move_advantage ? 0.0 : std::nan(""),
                         !options.first_move_advantage};
    for (const pool::Cell& c : t.problem.cells)
      if (c.v == v) a.games += int32_t(c.n), a.first_score += c.points;
    if (a.games) a.first_score /= a.games;
    out.advantages.push_back(a);
  }
  out.draw_rate_equal = fitted_draw_rate(t.problem, fit);
  if (options.simulations > 1 && !order.empty()) add_errors(t, fit, options, order, out);
  for (PoolRating& r : out.players)
    if (r.anchored) r.error = 0;
  add_warnings(t, fit, options, out);
  std::vector<std::string> anchors;
  for (const PoolRating& r : out.players)
    if (r.anchored) anchors.push_back(fmt::format("{} = {:g}", r.name, r.rating));
  out.reference = anchors.empty() ? fmt::format("pool mean {:g}", options.pool_mean)
                                  : fmt::format("anchored: {}", fmt::join(anchors, ", "));
  return out;
}

}  // namespace arena::tournament
