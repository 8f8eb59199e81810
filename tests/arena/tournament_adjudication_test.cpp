// Draw and resign adjudication by the players' scores (cutechess -draw / -resign semantics), and
// the status line's text.
#include <catch2/catch.hpp>

#include "arena/tournament/adjudication.h"
#include "arena/tournament/status_line.h"

using namespace arena;
using namespace arena::tournament;
using Kind = AdjudicationVerdict::Kind;

TEST_CASE("draw rule: both sides near zero for N moves each from move M", "[arena]") {
  config::AdjudicationConfig c;
  c.draw_move_number = 10;
  c.draw_move_count = 2;
  c.draw_score_cp = 10;
  AdjudicationTracker t(c);
  // Before move 10 nothing is adjudicated however long the run.
  for (int ply = 0; ply < 6; ++ply) CHECK(t.update(ply % 2 == 0, 5, 3 + ply / 2, 7).kind == Kind::None);
  // A score out of range breaks the run; a missing score too.
  CHECK(t.update(true, 50, 10, 7).kind == Kind::None);
  CHECK(t.update(false, 0, 10, 7).kind == Kind::None);
  CHECK(t.update(true, std::nullopt, 11, 7).kind == Kind::None);
  CHECK(t.update(false, -3, 11, 7).kind == Kind::None);
  CHECK(t.update(true, 4, 12, 7).kind == Kind::None);
  CHECK(t.update(false, 10, 12, 7).kind == Kind::None);
  CHECK(t.update(true, -10, 13, 7).kind == Kind::Draw);  // four plies in a row within 10 cp
  // A capture (halfmove clock 0) restarts the count.
  AdjudicationTracker u(c);
  for (int ply = 0; ply < 3; ++ply) CHECK(u.update(ply % 2 == 0, 0, 20, 5).kind == Kind::None);
  CHECK(u.update(false, 0, 20, 0).kind == Kind::None);
  for (int ply = 0; ply < 2; ++ply) CHECK(u.update(ply % 2 == 0, 0, 21, 1).kind == Kind::None);
  CHECK(u.update(true, 0, 22, 2).kind == Kind::Draw);
}

TEST_CASE("resign rule: one side's own score at or below -S for N of its moves", "[arena]") {
  config::AdjudicationConfig c;
  c.resign_move_count = 3;
  c.resign_score_cp = 500;
  AdjudicationTracker t(c);
  CHECK(t.update(false, -600, 5, 1).kind == Kind::None);
  CHECK(t.update(true, 600, 6, 1).kind == Kind::None);  // the other side's view does not count
  CHECK(t.update(false, -500, 6, 1).kind == Kind::None);
  CHECK(t.update(true, 100, 7, 1).kind == Kind::None);
  CHECK(t.update(false, -900, 7, 1).kind == Kind::SecondLoses);
  AdjudicationTracker u(c);
  CHECK(u.update(true, -700, 5, 1).kind == Kind::None);
  CHECK(u.update(true, -499, 6, 1).kind == Kind::None);  // not low enough: the run restarts
  CHECK(u.update(true, -700, 7, 1).kind == Kind::None);
  CHECK(u.update(true, -700, 8, 1).kind == Kind::None);
  CHECK(u.update(true, -700, 9, 1).kind == Kind::FirstLoses);
  // Without the rules configured nothing is adjudicated.
  AdjudicationTracker none(config::AdjudicationConfig{});
  for (int i = 0; i < 20; ++i) CHECK(none.update(i % 2 == 0, -5000, 50 + i, 1).kind == Kind::None);
}

TEST_CASE("status line text", "[arena]") {
  StatusInfo info;
  info.done = 5;
  info.total = 20;
  info.in_flight = 4;
  info.done_this_run = 5;
  info.elapsed_s = 50;
  info.moves = 400;
  info.deadline_misses = 3;
  EngineSample e;
  e.model = "tiny";
  e.queue = 2;
  e.running = 6;
  e.batch = 5.5;
  e.ttft_p50 = 0.25;
  e.ttft_p99 = 1.5;
  e.prefix_hit_rate = 0.8;
  info.engines = {e};
  CHECK(format_status(info) ==
        "[#####...............] 5/20 games, 4 playing | 8.0 moves/s | tiny: q 2 run 6 batch 5.5 ttft "
        "0.25/1.50s "
        "hit 80% | 3 late | ETA 0:02:30");
}
