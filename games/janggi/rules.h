// The four janggi rule sets as Fairy-Stockfish defines them, and the endings they decide:
// checkmate, bikjang (facing generals), two passes in a row, the no-capture limit, repetition
// (with perpetual check losing) and, where the rule set counts material, the counting result
// (chariot 13, cannon 7, horse 5, elephant 3, guard 3, soldier 2; Han gets 1.5 extra).
//
//   rule set            bikjang   endings by rule decided by
//   janggi              yes       counting
//   janggitraditional   yes       draw
//   janggimodern        no        counting
//   janggicasual        no        draw
// All four end a game after 100 plies without a capture and on the third occurrence of a position.
// These are the definitions of Fairy-Stockfish 11.1, the reference engine this project plays
// against (later Fairy-Stockfish versions give janggimodern a 200-ply limit, 4-fold repetition and
// a loss for shuffling one piece back and forth).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "games/game.h"
#include "games/janggi/position.h"

namespace games::janggi {

struct Rules {
  std::string_view name;
  // Facing generals: the side to move must break the facing or pass, and two facing
  // positions in a row end the game.
  bool bikjang = true;
  // Endings by rule (bikjang, double pass, no-capture limit, repetition) are decided by counting
  // points instead of being drawn.
  bool material_counting = true;
};

// Plies without a capture that end the game, and the occurrences of a position that do.
inline constexpr int kNoCapturePlies = 100;
inline constexpr int kRepetitionCount = 3;

// The rule set named `variant`, or nullopt for an unknown name.
std::optional<Rules> rules_for_variant(std::string_view variant);

// Whether the game has ended so that the side to move has no moves: two facing positions in a
// row (under the bikjang rule) or two passes in a row.
bool immediate_end(const Position& pos, const Rules& rules);

// Counting points of one side: its pieces' values, plus 1.5 for Han.
double counting_points(const Position& pos, Color c);

// The result of counting, with `why` (e.g. "bikjang") leading the reason.
Outcome counting_outcome(const Position& pos, std::string_view why);

// How the game stands under `rules`, given the number of legal moves of the side to move.
Outcome evaluate_outcome(const Position& pos, const Rules& rules, int num_legal_moves);

}  // namespace games::janggi
