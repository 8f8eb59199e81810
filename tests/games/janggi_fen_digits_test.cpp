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
