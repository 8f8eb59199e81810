// Adjudication as cutechess's -draw / -resign and fastchess do it, from the scores the playing
// agents report with their moves (MoveResult::score_cp, from the mover's side): a draw when both
// sides' scores stayed within draw_score_cp of zero for draw_move_count consecutive moves each
// from move draw_move_number on (a capture or pawn move restarts the count, as fastchess does);
// a loss for the side whose own score stayed at or below -resign_score_cp for resign_move_count
// consecutive moves. Moves without a score (LLM agents, random) break either run. A referee
// engine is not used: the players' own evaluations decide, as in fastchess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arena/config/config.h"

namespace arena::tournament {

struct AdjudicationVerdict {
  enum class Kind { None, Draw, FirstLoses, SecondLoses } kind = Kind::None;
};

class AdjudicationTracker {
 public:
  explicit AdjudicationTracker(const config::AdjudicationConfig& config) : config_(config) {}

  // Records a move by `first_side` with its score (nullopt when the agent gave none); `fullmove`
  // is the move number after it and `halfmove_clock` the FEN's plies since a capture or pawn
  // move. Returns the verdict the rules reach now.
  AdjudicationVerdict update(bool first_side, std::optional<int32_t> score_cp, int64_t fullmove,
                             int64_t halfmove_clock);

 private:
  config::AdjudicationConfig config_;
  int32_t draw_plies_ = 0;
  int32_t resign_moves_[2] = {0, 0};
};

}  // namespace arena::tournament
