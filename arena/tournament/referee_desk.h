// The runner's side of the adjudication referee (referee.h): starting it when a draw or resign
// rule needs it, sending it the position after each move of the games it serves, handing its
// scores to the games that wait for them, expiring the waits past their timeout, and falling back
// to the players' own scores (for one game, or for all once the referee is dead), logged once.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arena/config/config.h"
#include "arena/tournament/referee.h"

namespace arena::tournament {

class Match;

class RefereeDesk {
 public:
  RefereeDesk() = default;
  // Starts the referee when the tournament names one and a draw or resign rule needs it (one
  // engine per game in flight, at most 4); a referee that cannot start is logged and left out.
  void start(const config::TournamentConfig& config, std::function<void()> notify,
             std::function<std::optional<std::string>(const std::string&)> get_env);
  // Whether the tournament has a referee (its events carry `referee_cp`).
  bool active() const { return referee_ != nullptr; }
  // Whether the referee scores the games of a new match of `variant`.
  bool serves(const std::string& variant, const std::string& game) const;
  // Sends the position after the move `m` just played; false (and `m` dropped) when it cannot.
  bool submit(Match& m);
  // The referee failed in `m`: logged once, the players' scores from now on.
  void drop(Match& m, const std::string& why);
  // Hands the scores in to the games that wait for them and expires the waits past the timeout.
  void poll(std::chrono::steady_clock::time_point now, const std::vector<std::unique_ptr<Match>>& games);
  // How long a game waits for one score.
  std::chrono::milliseconds job_timeout() const;
  // Stops the referee's engines.
  void stop() { referee_.reset(); }

 private:
  std::unique_ptr<Referee> referee_;
  std::string name_;
  bool dead_logged_ = false;
};

}  // namespace arena::tournament
