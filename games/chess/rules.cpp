// Game-ending rules: mate, stalemate, dead positions, repetitions and move-count draws.
#include "games/chess/rules.h"

#include <algorithm>

#include "games/chess/movegen.h"

namespace games::chess {

namespace {

constexpr Bitboard kLightSquares = 0x55AA55AA55AA55AAULL;

Outcome draw(const char* reason) {
  return Outcome{Outcome::Result::Draw, reason};
}

}  // namespace

bool insufficient_material(const Position& pos) {
  if (pos.pieces(Pawn) | pos.pieces(Rook) | pos.pieces(Queen)) return false;
  const Bitboard knights = pos.pieces(Knight), bishops = pos.pieces(Bishop);
  if (popcount(knights | bishops) <= 1) return true;
  return !knights && (!(bishops & kLightSquares) || !(bishops & ~kLightSquares));
}

int repetition_count(const Position& pos, std::span<const uint64_t> keys) {
  if (keys.empty()) return 1;
  const int last = int(keys.size()) - 1;
  const int oldest = std::max(0, last - pos.rule50());
  int count = 1;
  for (int i = last - 2; i >= oldest; i -= 2)
    if (keys[i] == keys[last]) ++count;
  return count;
}

Outcome automatic_outcome(const Position& pos, std::span<const uint64_t> keys) {
  if (!has_legal_move(pos)) {
    if (!pos.in_check()) return draw("stalemate");
    return Outcome{pos.side_to_move() == White ? Outcome::Result::SecondWins : Outcome::Result::FirstWins,
                   "checkmate"};
  }
  if (insufficient_material(pos)) return draw("insufficient material");
  if (repetition_count(pos, keys) >= 5) return draw("fivefold repetition");
  if (pos.rule50() >= 150) return draw("seventy-five-move rule");
  return {};
}

Outcome claimable_draw(const Position& pos, std::span<const uint64_t> keys) {
  if (automatic_outcome(pos, keys).finished()) return {};
  if (repetition_count(pos, keys) >= 3) return draw("threefold repetition");
  if (pos.rule50() >= 100) return draw("fifty-move rule");
  return {};
}

}  // namespace games::chess
