// Regression tests for what the fuzz targets (fuzz/) found in the games layer: every input
// under tests/data/fuzz/ goes through the same property as its fuzz target, plus the first
// crash of each kind written out here so the test runs even without the source tree.
//   pgn-*: read_pgn accepted a game without moves whose FEN tag was garbage, so the game could
//          not be replayed (fixed: the FEN tag is checked when read).
#include <catch2/catch.hpp>
#include <string>

#include "games/chess/pgn.h"
#include "games/game.h"
#include "tests/common/testdata.h"

namespace {

// The pgn_fuzzer property: every game read replays from its start position.
void check_pgn(const std::string& text) {
  const auto games_read = games::chess::read_pgn(text);
  if (!games_read) {
    CHECK_FALSE(games_read.error().message.empty());
    return;
  }
  for (const auto& pgn : *games_read) {
    auto game = games::make_game("chess", pgn.start_fen);
    REQUIRE(game);
    for (const auto& move : pgn.moves) CHECK((*game)->apply(move));
  }
}

}  // namespace

TEST_CASE("PGN with a bad FEN tag and no moves is refused", "[games]") {
  constexpr char kInput[] =
      "[Event \"fuzz\"]\n[SetUp \"1\"]\n[FEN \"4k3\327\307\320\307QP3/4K2R w K - 0 1\"]\n[Result "
      "\"*\"]\n\n1;\000. O-O Kd7 2. e4\0367ntK/\001\000\000\000\000\001\000\036d4 eco*/2-1/2\n";
  const std::string input(kInput, sizeof kInput - 1);
  REQUIRE(input.size() == 121);
  const auto r = games::chess::read_pgn(input);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("bad FEN tag") != std::string::npos);
  CHECK_FALSE(games::chess::read_pgn("[FEN \"not a fen\"]\n\n*\n"));
  check_pgn(input);
}

TEST_CASE("Fuzz-found games inputs keep their properties", "[games]") {
  for (const auto& path : arena::test::fuzz_data_files("pgn-")) {
    INFO(path.filename().string());
    check_pgn(arena::test::read_bytes(path));
  }
}
