// The FEN fuzz property shared by the chess and janggi targets: a FEN that parses round-trips
// (FEN -> position -> FEN -> position gives the same FEN), and every legal move of the position
// applies and undoes back to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "games/game.h"

namespace fuzz {

// One FEN fuzz input for `variant`.
inline int run_fen(const char* variant, const uint8_t* data, size_t size) {
  const auto text = fuzz::as_text(data, size);
  auto game = games::make_game(variant, text);
  if (!game) {
    FUZZ_CHECK(!game.error().message.empty());
    return 0;
  }
  const std::string fen = (*game)->fen();
  auto again = games::make_game(variant, fen);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK((*again)->fen() == fen);
  const auto moves = (*game)->legal_moves();
  FUZZ_CHECK(moves.size() == (*game)->legal_moves_human().size());
  for (const auto& move : moves) {
    FUZZ_CHECK((*game)->apply(move).has_value());
    (void)(*game)->fen();
    FUZZ_CHECK((*game)->undo());
  }
  FUZZ_CHECK((*game)->fen() == fen);
  (void)(*game)->outcome();
  (void)(*game)->render_text();
  return 0;
}

}  // namespace fuzz
