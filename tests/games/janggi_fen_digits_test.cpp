// Janggi FEN ranks with two counts in a row ("5C111") are refused: arena used to sum them while
// Fairy-Stockfish reads a digit run as one number, so the same text meant two positions.
#include <catch2/catch.hpp>

#include "games/janggi/fen.h"

using games::janggi::parse_fen;

TEST_CASE("janggi FEN refuses adjacent counts in a rank", "[games][janggi]") {
  const std::string start = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";
  REQUIRE(parse_fen(start));
  for (const char* bad : {"rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C111C1/4K4/RNBA1ABNR w - - 0 1",
                          "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/54/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
                          "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/22K4/RNBA1ABNR w - - 0 1"}) {
    INFO(bad);
    const auto r = parse_fen(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("two counts in a row") != std::string::npos);
  }
  const auto r = parse_fen("rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/5C111/4K4/RNBA1ABNR w - - 0 1");
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "invalid FEN: rank 3 ('5C111') has two counts in a row; write each run of empty "
        "points as one digit 1-9");
}

TEST_CASE("janggi FEN reads back a bikjang position whose mover's opponent is in check", "[games][janggi]") {
  // Found by the differential perft test: Cho's cannon on f1 attacks Han's general on f9 over
  // Cho's own general (the generals face each other); Han, in check but in bikjang, passed.
  const std::string fen = "1n2aa1n1/rb3kr2/9/1pP1b1ppp/p6c1/1P2P1P1P/8R/2NR4N/1c3K3/2BAACB2 w - - 4 38";
  const auto pos = parse_fen(fen);
  REQUIRE(pos);
  CHECK(games::janggi::format_fen(*pos) == fen);
  // Without facing generals a side left in check is still refused (chariot e2 on general e10).
  const auto check = parse_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1");
  REQUIRE_FALSE(check);
  CHECK(check.error().message.find("Han's general is already in check") != std::string::npos);
}
