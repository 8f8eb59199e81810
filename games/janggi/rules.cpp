// Janggi rule sets and endings (see rules.h). The repetition logic follows Fairy-Stockfish's
// Position::is_optional_game_end, read over this position's own move history.
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

Move reversed(Move m) {
  return Move{m.to, m.from};
}

// The move that reached the state `k` plies back; nullopt for the starting position.
std::optional<Move> move_back(const Position& pos, int k) {
  if (k >= pos.plies_played()) return std::nullopt;
  return pos.state_back(k).move;
}

// janggimodern's rule against shuffling one piece: Fairy-Stockfish's "moveRepetition" count,
// walked back two plies at a time alongside the repetition scan. Returns true when the player who
// just moved has repeated the same back-and-forth too often and loses.
struct MoveRepetition {
  int count = 0;

  MoveRepetition(const Position& pos, const Rules& rules) {
    const StateInfo& now = pos.state();
    if (!rules.move_repetition_loses || now.pass || pos.state_back(1).in_check || pos.state_back(3).in_check)
      return;
    const PieceType moved = type_of(pos.piece_on(now.move.to));
    if (moved == General || moved == Guard) return;  // confined to the mover's own palace
    const StateInfo& before = pos.state_back(2);
    count = before.move == reversed(now.move) && !before.pass ? 2 : before.pass ? 1 : 0;
  }

  // One step of the scan at distance i (even, >= 4); true when the mover loses.
  bool step(const Position& pos, int i, int end) {
    if (count == 0) return false;
    if (i + 1 <= end && pos.state_back(i + 1).in_check) {
      count = 0;
    } else if (count < 4) {
      const Move reference = (count == 1 ? pos.state() : pos.state_back(i - 2)).move;
      count = move_back(pos, i) == reversed(reference) ? count + 1 : 0;
    } else {
      const std::optional<Move> earlier = move_back(pos, i);
      if (earlier && pos.state_back(i).captured == NoPiece && pos.state_back(i - 2).move.from == earlier->to)
        return true;
      count = 0;
    }
    return false;
  }
};

// The repetition ending, if the current position has occurred rules.repetition_count times
// since the last capture (or the janggimodern shuffle rule applies).
std::optional<Outcome> repetition_ending(const Position& pos, const Rules& rules) {
  const int end = std::min(pos.state().rule50, pos.plies_played());
  if (end < 4) return std::nullopt;
  const Color us = pos.side_to_move();
  const uint64_t key = pos.state().key;
  // "them" gave check in every position of the cycle where we are to move, "us" in the others.
  bool perpetual_them = pos.state().in_check && pos.state_back(2).in_check;
  bool perpetual_us = pos.state_back(1).in_check && pos.state_back(3).in_check;
  MoveRepetition shuffle(pos, rules);
  int num_repeats = 0;
  for (int i = 4; i <= end; i += 2) {
    if (shuffle.step(pos, i, end))
      return win_for(us, "move repetition (the same piece moved back and forth)");
    perpetual_them = perpetual_them && pos.state_back(i).in_check;
    if (pos.state_back(i).key == key && ++num_repeats + 1 == rules.repetition_count) {
      if (perpetual_them && !perpetual_us) return win_for(us, "perpetual check");
      if (perpetual_us && !perpetual_them) return win_for(~us, "perpetual check");
      return rule_ending(pos, rules, fmt::format("{}-fold repetition", rules.repetition_count));
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
    return Rules{.name = "janggimodern",
                 .bikjang = false,
                 .material_counting = true,
                 .no_capture_plies = 200,
                 .repetition_count = 4,
                 .move_repetition_loses = true};
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
  if (pos.state().rule50 >= rules.no_capture_plies)
    return rule_ending(pos, rules, fmt::format("{} plies without a capture", rules.no_capture_plies));
  if (auto ending = repetition_ending(pos, rules)) return *ending;
  return Outcome{};
}

}  // namespace games::janggi
