// games.pgn as written: the tag order, SetUp/FEN, per-move comments with latency and [%clk],
// the final comment and result, a black-to-move start, janggi in Fairy-Stockfish SAN, and the
// result accepted by pgn-extract.
#include "arena/tournament/pgn_writer.h"

#include <catch2/catch.hpp>

#include "arena/tournament/janggi_san.h"

using namespace arena;
using namespace arena::tournament;

namespace {

MoveEvent move(const std::string& uci, bool first, double latency) {
  MoveEvent m;
  m.uci = uci;
  m.first_side = first;
  m.latency_s = latency;
  return m;
}

}  // namespace

TEST_CASE("a chess game as PGN", "[arena]") {
  GameRecord g;
  g.start.index = 4;
  g.start.game = "g0005";
  g.start.variant = "chess";
  g.start.first = "alpha";
  g.start.second = "beta \"b\"";
  g.start_time = 1764547200;  // 2025-12-01 00:00 UTC
  g.moves = {move("f2f3", true, 0.5), move("e7e5", false, 1.25), move("g2g4", true, 0.1),
             move("d8h4", false, 2)};
  g.moves[1].clock_ms = std::array<int64_t, 2>{59000, 58750};
  g.moves[3].substitute = config::DeadlinePolicy::RandomMove;
  g.moves[3].agent = "beta";
  g.moves[3].failure = agents::MoveFailure{agents::FailureKind::Timeout, "no answer"};
  g.end = GameEnd{};
  g.end->result = "0-1";
  g.end->reason = "checkmate";
  g.end->termination = "normal";
  PgnContext ctx;
  ctx.clock = config::ClockConfig{std::chrono::milliseconds(60000), std::chrono::milliseconds(500)};
  auto pgn = game_to_pgn(g, ctx);
  REQUIRE(pgn.has_value());
  CHECK(*pgn ==
        "[Event \"arena tournament\"]\n"
        "[Site \"?\"]\n"
        "[Date \"2025.12.01\"]\n"
        "[Round \"5\"]\n"
        "[White \"alpha\"]\n"
        "[Black \"beta \\\"b\\\"\"]\n"
        "[Result \"0-1\"]\n"
        "[Variant \"Standard\"]\n"
        "[Termination \"normal\"]\n"
        "[PlyCount \"4\"]\n"
        "[TimeControl \"60+0.5\"]\n"
        "\n"
        "1. f3 {0.50s} 1... e5 {1.25s [%clk 0:00:58.7]} 2. g4 {0.10s} 2... Qh4# {2.00s\n"
        "random_move for beta (timeout)} {checkmate} 0-1\n\n");

  // The runner's events carry each move's SAN, which the writer takes as is: the same text as
  // the replay above gives (which also proves each move legal).
  const std::vector<std::string> san = {"f3", "e5", "g4", "Qh4#"};
  for (size_t i = 0; i < g.moves.size(); ++i) g.moves[i].human = san[i];
  CHECK(game_to_pgn(g, ctx) == pgn);
  g.moves[3].human = "Qh5";  // the event's own SAN is what is written
  CHECK(game_to_pgn(g, ctx)->find("2... Qh5 ") != std::string::npos);
}

TEST_CASE("a game from a FEN with black to move", "[arena]") {
  GameRecord g;
  g.start.variant = "chess";
  g.start.start_fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
  g.moves = {move("e7e5", false, 0), move("g1f3", true, 0)};
  g.end = GameEnd{};
  auto pgn = game_to_pgn(g, {});
  REQUIRE(pgn.has_value());
  CHECK(pgn->find("[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n[SetUp \"1\"]\n") !=
        std::string::npos);
  CHECK(pgn->find("\n1... e5 {0.00s} 2. Nf3 {0.00s} *\n") != std::string::npos);
  CHECK(pgn->find("[Termination \"unterminated\"]") != std::string::npos);
  g.moves.push_back(move("e1e3", false, 0));
  CHECK_FALSE(game_to_pgn(g, {}).has_value());
}

TEST_CASE("janggi moves in Fairy-Stockfish SAN", "[arena]") {
  // From the start: horse b1-c3, Han's soldier a7-a6, Cho's soldier a4-a5, chariot a10-a7, a pass.
  auto san = janggi_san_moves("janggi", "", {"b1c3", "a7a6", "a4a5", "a10a7", "e2e2"});
  REQUIRE(san.has_value());
  CHECK(*san == std::vector<std::string>{"Hc3", "Pa6", "Pa5", "Ra7", "Ke2"});
  // Chariots on a1 and i1 both reach e1 along the empty first rank: the origin file tells them apart.
  auto two = janggi_san_moves("janggi", "4k4/9/9/4p4/9/9/9/9/4K4/R7R w - - 0 1", {"a1e1"});
  REQUIRE(two.has_value());
  CHECK((*two)[0] == "Rae1");
  // A capture that gives check: the chariot takes the soldier in front of the Han general.
  auto capture = janggi_san_moves("janggi", "4k4/4p4/9/9/9/9/9/9/3K5/4R4 w - - 0 1", {"e1e9"});
  REQUIRE(capture.has_value());
  CHECK((*capture)[0] == "Rxe9+");
  CHECK_FALSE(janggi_san_moves("janggi", "", {"b1b5"}).has_value());
}
