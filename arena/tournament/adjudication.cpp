// Draw and resign adjudication by the players' scores (see adjudication.h).
#include "arena/tournament/adjudication.h"

#include <cstdlib>

namespace arena::tournament {

AdjudicationVerdict AdjudicationTracker::update(bool first_side, std::optional<int32_t> score_cp,
                                                int64_t fullmove, int64_t halfmove_clock) {
  AdjudicationVerdict v;
  if (config_.resign_move_count && *config_.resign_move_count > 0) {
    int32_t& run = resign_moves_[first_side ? 0 : 1];
    run = (score_cp && *score_cp <= -config_.resign_score_cp) ? run + 1 : 0;
    if (run >= *config_.resign_move_count) {
      v.kind = first_side ? AdjudicationVerdict::Kind::FirstLoses : AdjudicationVerdict::Kind::SecondLoses;
      return v;
    }
  }
  if (config_.draw_move_number && config_.draw_move_count > 0) {
    if (halfmove_clock == 0) draw_plies_ = 0;
    draw_plies_ = (score_cp && std::abs(*score_cp) <= config_.draw_score_cp) ? draw_plies_ + 1 : 0;
    if (fullmove >= *config_.draw_move_number && draw_plies_ >= 2 * config_.draw_move_count)
      v.kind = AdjudicationVerdict::Kind::Draw;
  }
  return v;
}

}  // namespace arena::tournament
