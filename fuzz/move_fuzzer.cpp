// Fuzz target: move parsing against a position, in every notation the games accept (UCI, chess
// SAN, janggi Korean numeric). The first byte picks the position (start positions and a few
// middlegames, chess and janggi), the second how many random legal moves to play from it first;
// the rest is the move text. Property: a move that parses is in the legal list, and to_human of
// it parses back to the same move.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "games/game.h"

namespace {

struct Start {
  const char* variant;
  const char* fen;
};

constexpr std::array kStarts{
    Start{"chess", ""},
    Start{"chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"},
    Start{"chess", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"},
    Start{"chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"},
    Start{"janggi", ""},
    Start{"janggimodern", ""},
    Start{"janggi", "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR b - - 0 1"},
    Start{"janggitraditional", ""},
};

// A position reached by a short deterministic walk from a start, with its legal moves. The walk
// depends only on the first two input bytes, so each of the 8 x 256 positions is made once and
// kept: move generation along the walk (up to 15 full generations under ASan) was ~95% of the
// time per input, and the move text, the part under test, is parsed against it as before.
struct Position {
  std::unique_ptr<games::Game> game;
  std::vector<std::string> legal;
};

const Position& position(uint8_t start_byte, uint8_t walk_byte) {
  static std::vector<std::unique_ptr<Position>> cache(kStarts.size() * 256);
  auto& slot = cache[(start_byte % kStarts.size()) * 256 + walk_byte];
  if (slot) return *slot;
  const Start& start = kStarts[start_byte % kStarts.size()];
  auto made = games::make_game(start.variant, start.fen);
  FUZZ_CHECK(made.has_value());
  auto& game = **made;
  // A short deterministic walk from the start, so positions other than the starts are tried.
  for (int i = 0, n = walk_byte % 16; i < n; ++i) {
    const auto moves = game.legal_moves();
    if (moves.empty()) break;
    FUZZ_CHECK(game.apply(moves[(static_cast<size_t>(walk_byte) * 31 + i * 7) % moves.size()]).has_value());
  }
  slot = std::make_unique<Position>();
  slot->legal = game.legal_moves();
  slot->game = std::move(*made);
  return *slot;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const Position& pos = position(data[0], data[1]);
  const games::Game& game = *pos.game;
  const auto text = fuzz::as_text(data + 2, size - 2);
  const auto move = game.parse_move(text);
  if (!move) {
    FUZZ_CHECK(!move.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(std::find(pos.legal.begin(), pos.legal.end(), *move) != pos.legal.end());
  const auto human = game.to_human(*move);
  FUZZ_CHECK(human.has_value());
  const auto back = game.parse_move(*human);
  FUZZ_CHECK(back.has_value() && *back == *move);
  return 0;
}
