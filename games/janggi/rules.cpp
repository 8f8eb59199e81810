// Janggi rule sets and endings (see rules.h). The order of the checks and the repetition scan
// follow Fairy-Stockfish's is_immediate_game_end / is_optional_game_end over this position's own
// move history (which, like the engine's, begins at the FEN the game started from).
#include "games/janggi/rules.h"

#include <fmt/core.h>

#include <algorithm>

namespace games::janggi {
namespace {

using Result = Outcome::Result;

Outcome win_for(Color c, std::string reason) {
  return Outcome{c == Cho ? Result::FirstWins : Result::SecondWins, std::move(reason)};
}

// A drawn ending by rule, or its counting result where the rule set counts material.
Outcome rule_ending(const Position& pos, const Rules& rules, std::string_view why) {
  if (rules.material_counting) return counting_outcome(pos, why);
  return Outcome{Result::Draw, std::string(why)};
}

// The repetition ending, if the current position has occurred kRepetitionCount times since the
// last capture. Perpetual check loses, whatever the rule set.
std::optional<Outcome> repetition_ending(const Position& pos, const Rules& rules) {
  const int end = std::min(pos.state().rule50, pos.plies_played());
  if (end < 4) return std::nullopt;
  const Color us = pos.side_to_move();
  const uint64_t key = pos.state().key;
  // "them" gave check in every position of the cycle where we are to move, "us" in the others.
  bool perpetual_them = pos.state().in_check && pos.state_back(2).in_check;
  bool perpetual_us = pos.state_back(1).in_check && pos.state_back(3).in_check;
  int num_repeats = 0;
  for (int i = 4; i <= end; i += 2) {
    perpetual_them = perpetual_them && pos.state_back(i).in_check;
    if (pos.state_back(i).key == key && ++num_repeats + 1 == kRepetitionCount) {
      if (perpetual_them && !perpetual_us) return win_for(us, "perpetual check");
      if (perpetual_us && !perpetual_them) return win_for(~us, "perpetual check");
      return rule_ending(pos, rules, "threefold repetition");
    }
    if (i + 1 <= end) perpetual_us = perpetual_us && pos.state_back(i + 1).in_check;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Rules> rules_for_variant(std::string_view variant) {
  if (variant == "janggi") return Rules{.name = "janggi"};
  if (variant == "janggitraditional")
    return Rules{.name = "janggitraditional", .bikjang = true, .material_counting = false};
  if (variant == "janggicasual")
    return Rules{.name = "janggicasual", .bikjang = false, .material_counting = false};
  if (variant == "janggimodern")
    return Rules{.name = "janggimodern", .bikjang = false, .material_counting = true};
  return std::nullopt;
}

bool immediate_end(const Position& pos, const Rules& rules) {
  if (pos.plies_played() == 0) return false;
  const StateInfo& now = pos.state();
  const StateInfo& before = pos.state_back(1);
  return (rules.bikjang && now.facing && before.facing) || (now.pass && before.pass);
}

double counting_points(const Position& pos, Color c) {
  constexpr int kValue[kNumPieceTypes] = {0, 0, 3, 3, 5, 13, 7, 2};
  double points = c == Han ? 1.5 : 0.0;
  for (int t = Guard; t <= Soldier; ++t) points += kValue[t] * pos.count(c, PieceType(t));
  return points;
}

Outcome counting_outcome(const Position& pos, std::string_view why) {
  const double cho = counting_points(pos, Cho), han = counting_points(pos, Han);
  return win_for(cho > han ? Cho : Han, fmt::format("{}; counting: Cho {:g}, Han {:g}", why, cho, han));
}

Outcome evaluate_outcome(const Position& pos, const Rules& rules, int num_legal_moves) {
  if (pos.plies_played() > 0) {
    const StateInfo& now = pos.state();
    const StateInfo& before = pos.state_back(1);
    if (rules.bikjang && now.facing && before.facing) return rule_ending(pos, rules, "bikjang");
    if (now.pass && before.pass) return rule_ending(pos, rules, "both sides passed");
  }
  const Color us = pos.side_to_move();
  if (num_legal_moves == 0) return win_for(~us, pos.state().in_check ? "checkmate" : "no legal moves");
  if (pos.state().rule50 >= kNoCapturePlies) return rule_ending(pos, rules, "100 plies without a capture");
  if (auto ending = repetition_ending(pos, rules)) return *ending;
  return Outcome{};
}

}  // namespace games::janggi
