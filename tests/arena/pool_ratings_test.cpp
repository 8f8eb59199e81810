// Pool ratings (Ordo's model) against cases worked by hand, Ordo's defining equations (each
// player's expected score equals its score; the first movers' likewise) on a mixed pool, perfect
// winners and losers as bounds, anchors, groups, and error bars against the trinomial formula.
#include "arena/tournament/pool_ratings.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "arena/tournament/ratings.h"

using namespace arena::tournament;
using Catch::Detail::Approx;

namespace {

// `n` games of `first` against `second` in chess with the first mover scoring `points`, as wins
// and then draws.
void add(std::vector<PoolGame>& games, const std::string& first, const std::string& second, int n,
         double points, const std::string& variant = "chess") {
  for (int i = 0; i < n; ++i) {
    const double s = points >= 1 ? 1.0 : points >= 0.5 ? 0.5 : 0.0;
    points -= s;
    games.push_back({variant, first, second, s});
  }
}

const PoolRating& row(const PoolRatings& r, const std::string& name) {
  for (const auto& p : r.players)
    if (p.name == name) return p;
  FAIL("no row for " << name);
  return r.players.front();
}

PoolRatingOptions fitted_advantage() {
  PoolRatingOptions o;
  o.first_move_advantage.reset();
  o.simulations = 0;
  return o;
}

PoolRatingOptions no_advantage(int32_t simulations = 0) {
  PoolRatingOptions o;
  o.first_move_advantage = 0.0;
  o.simulations = simulations;
  return o;
}

double expected(double x) {
  return 1 / (1 + std::pow(10.0, -x / 400));
}

}  // namespace

TEST_CASE("pool ratings: two players, 3 of 4, around the pool mean", "[ratings]") {
  std::vector<PoolGame> games;
  add(games, "a", "b", 2, 1.5);
  add(games, "b", "a", 2, 0.5);
  const PoolRatings r = fit_pool_ratings(games, no_advantage());
  // E = 0.75: a difference of 400 log10(3) = 190.8485, split around the mean 0.
  REQUIRE(r.players.size() == 2);
  CHECK(r.players[0].name == "a");
  CHECK(row(r, "a").rating == Approx(95.4243).margin(1e-3));
  CHECK(row(r, "b").rating == Approx(-95.4243).margin(1e-3));
  CHECK(row(r, "a").points == 3);
  CHECK(row(r, "a").wins == 2);
  CHECK(row(r, "a").draws == 2);
  CHECK(row(r, "a").losses == 0);
  CHECK(std::isnan(row(r, "a").error));
  CHECK(r.reference == "pool mean 0");
  CHECK(r.warnings.empty());
}

TEST_CASE("pool ratings: the first-move advantage fitted", "[ratings]") {
  // a scores 3 of 4 moving first and 2 of 4 moving second: d + w = 190.85 and d - w = 0.
  std::vector<PoolGame> games;
  add(games, "a", "b", 4, 3);
  add(games, "b", "a", 4, 2);
  const PoolRatings r = fit_pool_ratings(games, fitted_advantage());
  CHECK(row(r, "a").rating - row(r, "b").rating == Approx(95.4243).margin(1e-3));
  REQUIRE(r.advantages.size() == 1);
  CHECK(r.advantages[0].fitted);
  CHECK(r.advantages[0].elo == Approx(95.4243).margin(1e-3));
  CHECK(r.advantages[0].first_score == Approx(5.0 / 8));
}

TEST_CASE("pool ratings: every player's expected score equals its score (Ordo's equations)", "[ratings]") {
  std::mt19937_64 rng(7);
  const std::vector<std::string> names = {"p0", "p1", "p2", "p3", "p4", "p5"};
  const double strength[] = {300, 150, 0, -50, -200, -250};
  std::vector<PoolGame> games;
  for (int round = 0; round < 6; ++round)
    for (size_t i = 0; i < names.size(); ++i)
      for (size_t j = 0; j < names.size(); ++j) {
        if (i == j) continue;
        const double e = expected(strength[i] - strength[j] + 40);
        const double u = std::uniform_real_distribution<double>(0, 1)(rng);
        games.push_back({"chess", names[i], names[j], u < e - 0.15 ? 1.0 : u < e + 0.15 ? 0.5 : 0.0});
      }
  const PoolRatings r = fit_pool_ratings(games, fitted_advantage());
  const double w = r.advantages.at(0).elo;
  double mean = 0, first_expected = 0, first_points = 0;
  for (const auto& p : r.players) {
    double e = 0;
    for (const auto& g : games) {
      if (g.first == p.name) e += expected(row(r, g.first).rating - row(r, g.second).rating + w);
      if (g.second == p.name) e += 1 - expected(row(r, g.first).rating - row(r, g.second).rating + w);
    }
    CHECK(e == Approx(p.points).margin(1e-6));
    mean += p.rating / double(r.players.size());
  }
  for (const auto& g : games) {
    first_expected += expected(row(r, g.first).rating - row(r, g.second).rating + w);
    first_points += g.score;
  }
  CHECK(first_expected == Approx(first_points).margin(1e-6));
  CHECK(mean == Approx(0).margin(1e-9));
  CHECK(r.players.front().name == "p0");
}

TEST_CASE("pool ratings: a perfect winner gets a floor, from one game drawn", "[ratings]") {
  std::vector<PoolGame> games;
  add(games, "a", "b", 10, 10);
  add(games, "b", "c", 5, 2.5);
  add(games, "c", "b", 5, 2.5);
  const PoolRatings r = fit_pool_ratings(games, no_advantage());
  // b = c; a at 9.5 of 10 against b: 400 log10(19) = 511.5014 above; the three average 0.
  CHECK(row(r, "a").bound == RatingBound::AtLeast);
  CHECK(row(r, "a").rating == Approx(2 * 511.5014 / 3).margin(1e-3));
  CHECK(row(r, "b").rating == Approx(-511.5014 / 3).margin(1e-3));
  CHECK(row(r, "c").rating == Approx(row(r, "b").rating).margin(1e-6));
  CHECK(row(r, "b").bound == RatingBound::None);

  SECTION("anchored") {
    PoolRatingOptions o = no_advantage(50);
    o.anchors = {{"b", 1000}};
    const PoolRatings a = fit_pool_ratings(games, o);
    CHECK(row(a, "a").rating == Approx(1511.5014).margin(1e-3));
    CHECK(row(a, "c").rating == Approx(1000).margin(1e-6));
    CHECK(row(a, "b").error == 0);
    CHECK(row(a, "b").anchored);
    CHECK(a.reference == "anchored: b = 1000");
  }
}

TEST_CASE("pool ratings: perfect losers purged in turn and placed back as ceilings", "[ratings]") {
  // random loses everything; llm beats only random, so without random it loses everything too.
  std::vector<PoolGame> games;
  add(games, "search", "llm", 6, 6);
  add(games, "llm", "random", 6, 6);
  add(games, "search", "random", 6, 6);
  add(games, "search", "sf", 6, 3);
  const PoolRatings r = fit_pool_ratings(games, no_advantage());
  CHECK(row(r, "random").bound == RatingBound::AtMost);
  CHECK(row(r, "llm").bound == RatingBound::AtMost);
  CHECK(row(r, "search").bound == RatingBound::None);
  // llm at 0.5 of 6 against search: 400 log10(11) = 416.5571 below it.
  CHECK(row(r, "search").rating - row(r, "llm").rating == Approx(416.5571).margin(1e-3));
  CHECK(row(r, "llm").rating > row(r, "random").rating);
  CHECK(r.warnings.empty());
}

TEST_CASE("pool ratings: groups that never met are reported", "[ratings]") {
  std::vector<PoolGame> games;
  add(games, "a", "b", 4, 3);
  add(games, "c", "d", 4, 1);
  PoolRatingOptions o = no_advantage();
  o.anchors = {{"nobody", 5}};
  const PoolRatings r = fit_pool_ratings(games, o);
  REQUIRE(r.groups.size() == 2);
  CHECK(row(r, "a").rating + row(r, "b").rating == Approx(0).margin(1e-6));
  CHECK(row(r, "c").rating + row(r, "d").rating == Approx(0).margin(1e-6));
  CHECK(row(r, "a").group != row(r, "c").group);
  REQUIRE(r.warnings.size() == 2);
  CHECK_THAT(r.warnings[0], Catch::Contains("'nobody' played no game"));
  CHECK_THAT(r.warnings[1], Catch::Contains("2 groups that never met"));
}

TEST_CASE("pool ratings: error bars agree with the trinomial formula; seeded", "[ratings]") {
  // 200 games, a scores +90 =50 -60 (0.575), colours alternating.
  std::vector<PoolGame> games;
  for (int i = 0; i < 200; ++i) {
    const double s = i < 90 ? 1.0 : i < 140 ? 0.5 : 0.0;
    games.push_back(i % 2 ? PoolGame{"chess", "b", "a", 1 - s} : PoolGame{"chess", "a", "b", s});
  }
  const PoolRatings r = fit_pool_ratings(games, no_advantage(2000));
  const EloEstimate e = elo_trinomial(90, 50, 60);
  // a is half the difference above the mean: its error is half the difference's.
  CHECK(row(r, "a").rating * 2 == Approx(e.elo).epsilon(1e-6));
  CHECK(row(r, "a").error * 2 == Approx(e.elo_error).epsilon(0.10));
  CHECK(r.draw_rate_equal == Approx(50.0 / 200 / (4 * 0.575 * 0.425)).epsilon(1e-6));
  REQUIRE(r.los.size() == 2);
  CHECK(r.los[0][1] == Approx(e.los).margin(0.03));
  CHECK(r.los[1][0] == Approx(1 - r.los[0][1]).margin(1e-9));

  const PoolRatings again = fit_pool_ratings(games, no_advantage(2000));
  CHECK(again.players[0].error == r.players[0].error);
  PoolRatingOptions other = no_advantage(2000);
  other.seed = 2;
  CHECK(fit_pool_ratings(games, other).players[0].error != r.players[0].error);
}
