// A game in flight (see live_game.h).
#include "arena/tournament/live_game.h"

#include <fmt/core.h>

namespace arena::tournament {

void LiveGame::finish(int loser, const std::string& why, const std::string& pgn_termination) {
  if (over) return;
  over = true;
  result = loser < 0 ? "1/2-1/2" : loser == 0 ? "0-1" : "1-0";
  reason.assign(why);
  termination.assign(pgn_termination);
  closing_since = SteadyClock::now();
}

void LiveGame::interrupt(const std::string& why) {
  if (over) return;
  over = true;
  result.clear();
  result.push_back('*');
  reason.assign(why);
  termination = "unterminated";
  closing_since = SteadyClock::now();
}

std::string game_id(int32_t index) {
  return fmt::format("g{:04}", index + 1);
}

}  // namespace arena::tournament
