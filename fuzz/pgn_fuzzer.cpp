// Fuzz target: the PGN reader. Property: every game read replays legally from its start
// position, and writing it and reading it back gives the same moves and result.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "games/chess/pgn.h"
#include "games/game.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto games_read = games::chess::read_pgn(fuzz::as_text(data, size));
  if (!games_read) {
    FUZZ_CHECK(!games_read.error().message.empty());
    return 0;
  }
  for (const auto& pgn : *games_read) {
    auto game = games::make_game("chess", pgn.start_fen);
    FUZZ_CHECK(game.has_value());
    for (const auto& move : pgn.moves) FUZZ_CHECK((*game)->apply(move).has_value());
    const auto written = games::chess::write_pgn(pgn);
    FUZZ_CHECK(written.has_value());
    const auto reread = games::chess::read_pgn(*written);
    FUZZ_CHECK(reread.has_value() && reread->size() == 1);
    FUZZ_CHECK((*reread)[0].moves == pgn.moves);
    FUZZ_CHECK((*reread)[0].result == pgn.result);
  }
  return 0;
}
