// One game in flight: its position, the two seats (agent instance, pending ticket, deadline),
// the clocks and the adjudication state, and how the game ended. The runner (runner.cpp) drives
// it; this type only keeps the state consistent and builds the events it produces.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "arena/tournament/adjudication.h"
#include "arena/tournament/schedule.h"
#include "games/game.h"

namespace arena::tournament {

using SteadyClock = std::chrono::steady_clock;

struct Seat {
  int32_t participant = 0;
  std::string name;
  std::unique_ptr<agents::Agent> agent;          // null when it could not be made
  std::shared_ptr<agents::MoveTicket> ticket;    // the request in progress
  std::shared_ptr<agents::MoveTicket> draining;  // a cancelled request not yet resolved
  SteadyClock::time_point asked_at{};
  SteadyClock::time_point answered_at{};  // when the loop first saw the ticket ready
  SteadyClock::time_point deadline{};
  bool missed = false;  // this request's deadline passed (counted once)
};

struct LiveGame {
  ScheduledGame spec;
  std::string id;
  std::unique_ptr<games::Game> game;
  std::array<Seat, 2> seats;  // [0] plays first (white / Cho)
  std::vector<std::string> moves;
  std::optional<std::array<int64_t, 2>> clock_ms;  // time left, when the tournament has clocks
  std::optional<AdjudicationTracker> adjudication;
  // The referee (when the tournament has one and it plays this variant): the last move's event
  // waits here for the referee's score of the position after it. Until it comes (or its timeout)
  // the next answer is held, so the rules see every ply in order, exactly as without the wait.
  struct RefereeWait {
    int32_t ply = 0;
    bool first_side = true;
    std::optional<int32_t> player_cp;  // the mover's own score (the fallback)
    nlohmann::json event;
    SteadyClock::time_point since{};
  };
  bool use_referee = false;  // false from the referee's first failure in this game on
  std::optional<RefereeWait> referee_wait;
  // The end, once decided.
  bool over = false;
  std::string result, reason, termination, failure_agent, failure_kind, failure_message;
  SteadyClock::time_point closing_since{};  // when the end was decided (for draining agents)

  // The seat whose turn it is.
  int side_to_move() const { return game->side_to_move() == games::Side::First ? 0 : 1; }
  // Ends the game: `loser` 0 / 1 loses, or -1 for a draw (or "*" when `result` is given).
  void finish(int loser, const std::string& why, const std::string& pgn_termination);
  // Ends the game as unfinished ("*").
  void interrupt(const std::string& why);
};

// "g0001" for index 0.
std::string game_id(int32_t index);

}  // namespace arena::tournament
