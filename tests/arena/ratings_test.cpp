// Ratings: Elo, nElo, LOS, pentanomial and SPRT against values computed by hand (the formulas of
// arena/tournament/ratings.h evaluated separately) and the examples of fastchess's own tests.
#include "arena/tournament/ratings.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace arena::tournament;
using Catch::Detail::Approx;

TEST_CASE("trinomial Elo, nElo and LOS by hand", "[arena]") {
  // 6 wins, 2 draws, 2 losses: s = 0.7, var = 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16.
  const EloEstimate e = elo_trinomial(6, 2, 2);
  REQUIRE(e.valid);
  CHECK(e.score == Approx(0.7));
  CHECK(e.variance == Approx(0.16));
  CHECK(e.elo == Approx(147.1907).epsilon(1e-6));
  CHECK(e.elo_error == Approx(268.7163).epsilon(1e-6));
  CHECK(e.nelo == Approx(173.7178).epsilon(1e-6));
  CHECK(e.los == Approx(0.943077).epsilon(1e-5));
}

TEST_CASE("pentanomial Elo by hand", "[arena]") {
  Pentanomial p{.ll = 1, .ld = 2, .wl = 1, .dd = 2, .wd = 2, .ww = 2};
  const EloEstimate e = elo_pentanomial(p);
  REQUIRE(e.valid);
  CHECK(e.score == Approx(0.55));
  CHECK(e.variance == Approx(0.0975));
  CHECK(e.elo == Approx(34.86007).epsilon(1e-6));
  CHECK(e.elo_error == Approx(143.7623).epsilon(1e-6));
  CHECK(e.nelo == Approx(39.33933).epsilon(1e-6));
  CHECK(e.los == Approx(0.693701).epsilon(1e-5));
}

TEST_CASE("fastchess's Elo examples", "[arena]") {
  // fastchess app/tests/elo_test.cpp: Stats(wins, losses, draws) and Stats(LL, LD, WL, DD, WD, WW).
  const EloEstimate a = elo_trinomial(76, 123, 89);
  CHECK(a.nelo == Approx(-20.76).epsilon(0.01));
  CHECK(a.nelo_error == Approx(40.13).epsilon(0.01));
  CHECK(a.los * 100 == Approx(15.53).margin(0.005));
  const EloEstimate b = elo_trinomial(136, 111, 96);
  CHECK(b.nelo == Approx(49.77).epsilon(0.01));
  CHECK(b.elo == Approx(40.70).epsilon(0.01));
  CHECK(b.elo_error == Approx(30.43).epsilon(0.01));
  CHECK(b.los * 100 == Approx(99.60).margin(0.005));
  const EloEstimate c = elo_pentanomial({34, 54, 31, 32, 64, 75});
  CHECK(c.nelo == Approx(57.94).epsilon(0.01));
  CHECK(c.nelo_error == Approx(28.28).epsilon(0.01));
  CHECK(c.elo == Approx(55.58).epsilon(0.01));
  CHECK(c.elo_error == Approx(27.65).epsilon(0.01));
  const EloEstimate d = elo_pentanomial({332, 433, 457, 41, 333, 334});
  CHECK(d.nelo == Approx(-9.17).epsilon(0.01));
  CHECK(d.elo == Approx(-8.64).epsilon(0.01));
  CHECK(d.los * 100 == Approx(5.05).margin(0.005));
}

TEST_CASE("degenerate scores", "[arena]") {
  CHECK_FALSE(elo_trinomial(0, 0, 0).valid);
  const EloEstimate all = elo_trinomial(5, 0, 0);
  CHECK_FALSE(all.valid);
  CHECK(std::isinf(all.elo));
  CHECK(all.los == 1.0);
  CHECK(elo_trinomial(0, 4, 0).elo == Approx(0.0).margin(1e-12));
}

TEST_CASE("pentanomial pair classification", "[arena]") {
  Pentanomial p;
  p.add_pair(0, 0);
  p.add_pair(0.5, 1);
  p.add_pair(1, 0);
  p.add_pair(1, 2);
  p.add_pair(1.5, 1);
  p.add_pair(2, 0);
  CHECK(p.ll == 1);
  CHECK(p.ld == 1);
  CHECK(p.wl == 1);
  CHECK(p.dd == 1);
  CHECK(p.wd == 1);
  CHECK(p.ww == 1);
  const Pentanomial q = Pentanomial{1, 2, 3, 4, 5, 6}.inverted();
  CHECK(q.ll == 6);
  CHECK(q.ld == 5);
  CHECK(q.wd == 2);
  CHECK(q.ww == 1);
}

TEST_CASE("SPRT bounds and fastchess's LLR examples", "[arena]") {
  const SprtBounds b = sprt_bounds(0.05, 0.05);
  CHECK(b.lower == Approx(std::log(0.05 / 0.95)));
  CHECK(b.upper == Approx(2.944439).epsilon(1e-6));
  CHECK(sprt_decide(3.0, b) == SprtDecision::AcceptH1);
  CHECK(sprt_decide(-3.0, b) == SprtDecision::AcceptH0);
  CHECK(sprt_decide(0.1, b) == SprtDecision::Continue);
  // fastchess app/tests/sprt_test.cpp, normalized model.
  CHECK(sprt_llr_trinomial(36433, 68692, 36027, 0, 2) == Approx(0.92).epsilon(0.01));
  CHECK(sprt_llr_trinomial(10871, 20431, 10650, -1.75, 0.25) == Approx(2.30).epsilon(0.01));
  CHECK(sprt_llr_trinomial(4250, 0, 0, 0, 10) == Approx(120.56).epsilon(0.01));
  CHECK(sprt_llr_pentanomial({365, 16618, 36029, 200, 16974, 390}, 0, 2) == Approx(2.25).epsilon(0.01));
  CHECK(sprt_llr_pentanomial({127, 4883, 10311, 401, 5150, 104}, -1.75, 0.25) == Approx(3.01).epsilon(0.01));
  CHECK(sprt_llr_pentanomial({0, 0, 0, 0, 0, 5550}, 0, 5) == Approx(111.82).epsilon(0.01));
  // An even match moves the LLR towards H0 of a positive elo1.
  CHECK(sprt_llr_trinomial(50, 100, 50, 0, 5) < 0);
}
