// Move quality from the referee's scores, against hand-worked cases (the values from lichess's
// formulas, worked out beside the test): win%, move accuracy, centipawn loss, the judgments with
// their thresholds and lichess's mate rules, the phases, and a whole game with a missing score,
// a substituted move, mates and a checkmating last move (no referee score) in its ACPL, accuracy
// and blunder counts; and the standings' move-quality block and `standings` event fields.
#include "arena/tournament/move_quality.h"

#include <array>
#include <catch2/catch.hpp>

#include "arena/tournament/move_quality_report.h"
#include "arena/tournament/standings.h"

using namespace arena;
using namespace arena::tournament;
using Catch::Detail::Approx;

namespace {

const char* kStart = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// A finished game of `a` (first) against `b` whose moves carry these referee scores (from the
// mover's view; null = none), ending `result` by the rules after the last one.
GameBook game_with_scores(const std::vector<std::optional<int32_t>>& scores, const std::string& result,
                          int substituted_ply = 0) {
  const std::array<std::string, 2> agents{"a", "b"};
  GameBook book;
  book.apply(Event{1, 0, GameStart{"g0001", 0, -1, "chess", "a", "b", kStart, "", std::nullopt}});
  for (size_t i = 0; i < scores.size(); ++i) {
    MoveEvent m;
    m.game = "g0001";
    m.ply = int32_t(i) + 1;
    m.first_side = i % 2 == 0;
    m.agent = agents[i % 2];
    m.fen = kStart;  // full material: the opening
    m.has_referee = true;
    m.referee_cp = scores[i];
    if (m.ply == substituted_ply) m.substitute = config::DeadlinePolicy::RandomMove;
    book.apply(Event{int64_t(i) + 2, double(i), m});
  }
  GameEnd end{"g0001", 0, result, "checkmate", "normal", int32_t(scores.size()), "", std::nullopt};
  book.apply(Event{100, 100, end});
  return book;
}

// The worked game: a = first side, b = second.
//   ply 1 a  30     first move: no eval before, not scored
//   ply 2 b -20     before -30, after -20: loss 0, accuracy 100
//   ply 3 a  25     before  20: loss 0
//   ply 4 b -400    before -25: loss 375, winning chances drop 0.581: blunder, accuracy 26.953
//   ply 5 a  100    before 400: loss 300, drop 0.445: blunder, accuracy 36.993
//   ply 6 b  null   the referee failed: not scored
//   ply 7 a  200    no eval before: not scored
//   ply 8 b  mated in 3 (-29997)  before -200: lichess's "mate created" from above -700: blunder,
//                   loss -200 - (-1000) = 800, accuracy 25.865
//   ply 9 a  mate in 2 (29998)    before mate in 3: a mate kept, loss 0, no judgment
//   ply 10 b mated in 1, substituted: not b's move, not scored
//   ply 11 a checkmate, no referee score: after = the win, before mate in 1: loss 0
// a: 4 moves, ACPL 300/4 = 75, 1 blunder; b: 3 moves, ACPL 1175/3, 2 blunders.
GameBook worked_game() {
  return game_with_scores({30, -20, 25, -400, 100, std::nullopt, 200, -29997, 29998, -29999, std::nullopt},
                          "1-0", 10);
}

}  // namespace

TEST_CASE("lichess's win percent and move accuracy", "[arena][quality]") {
  CHECK(win_percent(0) == Approx(50.0));
  CHECK(win_percent(100) == Approx(59.1025897));
  CHECK(win_percent(-300) == Approx(24.8874499));
  CHECK(win_percent(1000) == Approx(97.5447436));
  CHECK(win_percent(5000) == win_percent(1000));  // clamped at +-1000 cp
  CHECK(win_percent(29990) == win_percent(1000));
  CHECK(move_accuracy(60, 60) == 100.0);
  CHECK(move_accuracy(50, 70) == 100.0);  // a gain is perfect
  CHECK(move_accuracy(60, 50) == Approx(64.5798285));
  CHECK(move_accuracy(100, 0) == 0.0);  // clamped at 0
  CHECK(cp_loss(-25, -400) == 375);
  CHECK(cp_loss(100, 400) == 0);
  CHECK(cp_loss(2000, -29990) == 2000);  // both clamped to +-1000
}

TEST_CASE("lichess's judgments: thresholds and mates", "[arena][quality]") {
  // A drop in winning chances of 0.1 / 0.2 / 0.3 from an even position.
  CHECK(judge(0, -50) == Judgment::None);        // 0.092
  CHECK(judge(0, -60) == Judgment::Inaccuracy);  // 0.110
  CHECK(judge(0, -120) == Judgment::Mistake);    // 0.217
  CHECK(judge(0, -160) == Judgment::Mistake);    // 0.286
  CHECK(judge(0, -170) == Judgment::Blunder);    // 0.303
  CHECK(judge(-120, 0) == Judgment::None);       // a gain
  CHECK(judge(3000, 1500) == Judgment::None);    // both beyond the ceiling
  // A mate against the mover that was not there, by how lost it already was.
  CHECK(judge(-1200, -29990) == Judgment::Inaccuracy);
  CHECK(judge(-800, -29990) == Judgment::Mistake);
  CHECK(judge(50, -29990) == Judgment::Blunder);
  // The mover's own mate gone, by what is left.
  CHECK(judge(29990, 1200) == Judgment::Inaccuracy);
  CHECK(judge(29990, 800) == Judgment::Mistake);
  CHECK(judge(29990, 300) == Judgment::Blunder);
  CHECK(judge(29990, -29995) == Judgment::Blunder);
  // Mates kept, found or already against the mover: no judgment.
  CHECK(judge(29995, 29990) == Judgment::None);
  CHECK(judge(100, 29990) == Judgment::None);
  CHECK(judge(-29995, -29998) == Judgment::None);
  CHECK(std::string(glyph(Judgment::Blunder)) == "??");
  CHECK(std::string(glyph(Judgment::Mistake)) == "?");
  CHECK(std::string(glyph(Judgment::Inaccuracy)) == "?!");
}

TEST_CASE("game phases by plies and material", "[arena][quality]") {
  CHECK(game_phase(kStart, 0) == GamePhase::Opening);
  CHECK(game_phase(kStart, 19) == GamePhase::Opening);
  CHECK(game_phase(kStart, 20) == GamePhase::Middlegame);
  // Kings, pawns and one rook each: an endgame from the first ply.
  CHECK(game_phase("r3k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1", 4) == GamePhase::Endgame);
  // Janggi's start: 16 pieces besides generals, advisors and soldiers.
  const char* janggi = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";
  CHECK(game_phase(janggi, 10) == GamePhase::Opening);
  CHECK(game_phase("4ka3/9/9/9/9/9/9/9/4A4/R2AK4 w - - 0 1", 10) == GamePhase::Endgame);
}

TEST_CASE("a worked game: ACPL, accuracy, blunders, missing scores, mates, the first move",
          "[arena][quality]") {
  const GameBook book = worked_game();
  const auto moves = judge_game(book.games().begin()->second);
  REQUIRE(moves.size() == 11);
  CHECK_FALSE(moves[0].scored);  // the first move: no eval before
  CHECK_FALSE(moves[0].before.has_value());
  CHECK(moves[1].scored);
  CHECK(moves[1].cp_loss == 0);
  CHECK(moves[1].accuracy == 100.0);
  CHECK(moves[3].cp_loss == 375);
  CHECK(moves[3].accuracy == Approx(26.9532161));
  CHECK(moves[3].judgment == Judgment::Blunder);
  CHECK(moves[4].judgment == Judgment::Blunder);
  CHECK(moves[4].accuracy == Approx(36.9931280));
  CHECK_FALSE(moves[5].scored);  // no referee score
  CHECK_FALSE(moves[6].scored);  // no eval before
  CHECK(moves[7].cp_loss == 800);
  CHECK(moves[7].judgment == Judgment::Blunder);
  CHECK(moves[8].scored);
  CHECK(moves[8].judgment == Judgment::None);
  CHECK_FALSE(moves[9].scored);     // substituted
  CHECK(moves[10].after == 30000);  // checkmate by the rules
  CHECK(moves[10].scored);
  CHECK(moves[10].cp_loss == 0);

  // lichess's game accuracy: window 2 (11 plies), weights the win% deviation over the positions
  // before and after each move, clamped to 0.5..12.
  CHECK(*game_accuracy(moves, true) == Approx(57.3081191));
  CHECK(*game_accuracy(moves, false) == Approx(31.4455126));

  const auto quality = compute_move_quality(book);
  REQUIRE(quality.has_value());
  const QualityStats& a = quality->at("a").all;
  CHECK(a.moves == 4);
  CHECK(*a.acpl() == Approx(75.0));
  CHECK(a.blunders == 1);
  CHECK(a.mistakes + a.inaccuracies == 0);
  CHECK(*a.accuracy() == Approx(57.3081191));
  CHECK(*a.move_accuracy() == Approx((300 + 36.9931280) / 4));
  const QualityStats& b = quality->at("b").all;
  CHECK(b.moves == 3);
  CHECK(*b.acpl() == Approx(1175.0 / 3));
  CHECK(b.blunders == 2);
  CHECK(quality->at("a").variants.at("chess").moves == 4);
  CHECK(quality->at("a").phases[int(GamePhase::Opening)].moves == 4);
  CHECK(quality->at("a").phases[int(GamePhase::Endgame)].moves == 0);
  // A phase has no game accuracy, only the mean of its moves.
  CHECK_FALSE(quality->at("b").phases[0].accuracy().has_value());
  CHECK(*quality->at("b").phases[0].move_accuracy() == Approx((100 + 26.9532161 + 25.8651737) / 3));
}

TEST_CASE("a drawn last move counts as 0, and no referee means no move quality", "[arena][quality]") {
  // ply 3 a: +300 before, stalemate (draw by the rules) after: loss 300, a blunder.
  const GameBook drawn = game_with_scores({0, -300, std::nullopt}, "1/2-1/2");
  const auto moves = judge_game(drawn.games().begin()->second);
  CHECK(moves[2].after == 0);
  CHECK(moves[2].cp_loss == 300);
  CHECK(moves[2].judgment == Judgment::Blunder);
  // A move of accuracy 0 counts as 1 in lichess's harmonic mean: b's only scored move throws a
  // +1000 away (97.5 win% down to 2.5): weighted mean 0, harmonic mean 1, game accuracy 0.5.
  const auto thrown = judge_game(game_with_scores({-1000, -1000, 1000}, "1-0").games().begin()->second);
  CHECK(thrown[1].accuracy == 0.0);
  CHECK(*game_accuracy(thrown, false) == Approx(0.5));
  // Every score missing: the block is there, with nothing scored.
  const auto none = compute_move_quality(game_with_scores({std::nullopt, std::nullopt}, "1/2-1/2"));
  REQUIRE(none.has_value());
  CHECK(none->at("a").all.moves == 0);
  CHECK_FALSE(none->at("a").all.acpl().has_value());
  CHECK_FALSE(none->at("a").all.accuracy().has_value());
  // Moves without the referee field: no block at all.
  GameBook plain;
  plain.apply(Event{1, 0, GameStart{"g0001", 0, -1, "chess", "a", "b", kStart, "", std::nullopt}});
  MoveEvent m;
  m.game = "g0001";
  m.ply = 1;
  m.fen = kStart;
  plain.apply(Event{2, 1, m});
  plain.apply(Event{3, 2, GameEnd{"g0001", 0, "1-0", "checkmate", "normal", 1, "", std::nullopt}});
  CHECK_FALSE(compute_move_quality(plain).has_value());
  const Standings st = compute_standings({"a", "b"}, plain, 1, std::nullopt);
  CHECK(move_quality_text(st).empty());
  CHECK_FALSE(standings_json(st).contains("move_quality"));
  CHECK_FALSE(standings_event(st).rows[0].quality.has_value());
}

TEST_CASE("the standings carry the move-quality block", "[arena][quality]") {
  const Standings st = compute_standings({"a", "b"}, worked_game(), 1, std::nullopt);
  const std::string text = standings_text(st);
  INFO(text);
  CHECK(text.find("Move quality by the referee") != std::string::npos);
  CHECK(text.find("   75.0 ") != std::string::npos);  // a's ACPL
  CHECK(text.find("  opening") != std::string::npos);
  const auto json = standings_json(st);
  CHECK(json["move_quality"]["a"]["acpl"] == Approx(75.0));
  CHECK(json["move_quality"]["b"]["blunders"] == 2);
  CHECK(json["move_quality"]["a"]["phases"]["opening"]["moves"] == 4);
  CHECK(json["move_quality"]["a"]["variants"]["chess"]["moves"] == 4);
  CHECK(standings_markdown(st).find("| a: opening | 4 | 75.0 | - |") != std::string::npos);
  const StandingsEvent event = standings_event(st);
  for (const auto& row : event.rows) {
    REQUIRE(row.quality.has_value());
    CHECK(row.quality->blunders == (row.agent == "a" ? 1 : 2));
    CHECK(*row.quality->acpl == Approx(row.agent == "a" ? 75.0 : 1175.0 / 3));
  }
}
