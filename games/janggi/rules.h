// The four janggi rule sets as Fairy-Stockfish defines them, and the endings they decide:
// checkmate, bikjang (facing generals), two passes in a row, the no-capture limit, repetition
// (with perpetual check losing) and, where the rule set counts material, the counting result
// (chariot 13, cannon 7, horse 5, elephant 3, guard 3, soldier 2; Han gets 1.5 extra).
//
//   rule set            bikjang   counting   no-capture limit   repetition
//   janggi              yes       yes        100 plies          3-fold
//   janggitraditional   yes       no (draw)  100 plies          3-fold
//   janggicasual        no        no (draw)  100 plies          3-fold
//   janggimodern        no        yes        200 plies          4-fold, and moving one piece
//                                                               back and forth loses
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
  // Plies without a capture that end the game.
  int no_capture_plies = 100;
  // How many times a position must occur to end the game.
  int repetition_count = 3;
  // janggimodern: a player who keeps moving one piece back and forth loses.
  bool move_repetition_loses = false;
};

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
