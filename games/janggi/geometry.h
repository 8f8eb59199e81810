// Precomputed move geometry of the janggi board: the rays of chariots and cannons (orthogonal,
// and along the palace diagonals), horse and elephant leaps with the points that block them,
// general/guard steps inside each palace, and soldier steps. Built once at compile time; the
// move generator and the attack test only read it.
#pragma once

#include <array>
#include <cstdint>

#include "games/janggi/types.h"

namespace games::janggi {

// Squares along one direction from a square, nearest first.
struct Ray {
  uint8_t num_squares = 0;
  std::array<uint8_t, 9> squares{};
};

// A leap to `to` that is blocked by a piece on `block1` or `block2` (equal for the horse). In the
// reverse tables (horse_from, elephant_from) `to` is where the leaping piece stands instead.
struct Leap {
  uint8_t to = 0;
  uint8_t block1 = 0;
  uint8_t block2 = 0;
};

struct Leaps {
  uint8_t num_leaps = 0;
  std::array<Leap, 8> leaps{};
};

// A short list of target squares (steps of generals, guards and soldiers).
struct Steps {
  uint8_t num_steps = 0;
  std::array<uint8_t, 8> squares{};
};

struct Geometry {
  // Orthogonal rays (north, east, south, west) for chariot and cannon.
  std::array<std::array<Ray, 4>, kNumSquares> rays;
  // Rays along the palace diagonals from a palace corner or centre (empty elsewhere).
  std::array<std::array<Ray, 4>, kNumSquares> palace_rays;
  // Horse leaps from a square, and the reverse: where a horse attacking the square stands.
  std::array<Leaps, kNumSquares> horse;
  std::array<Leaps, kNumSquares> horse_from;
  // The same for elephants (one orthogonal then two diagonal steps, blockable at both points).
  std::array<Leaps, kNumSquares> elephant;
  std::array<Leaps, kNumSquares> elephant_from;
  // General and guard steps of each side: along the palace lines, staying in its own palace.
  std::array<std::array<Steps, kNumSquares>, kNumColors> palace_steps;
  // Soldier steps of each side (forward, sideways, forward along a palace diagonal) and the
  // reverse: where a soldier of that side attacking the square stands.
  std::array<std::array<Steps, kNumSquares>, kNumColors> soldier;
  std::array<std::array<Steps, kNumSquares>, kNumColors> soldier_from;
};

// The board geometry, constant-initialized.
extern const Geometry kGeometry;

}  // namespace games::janggi
