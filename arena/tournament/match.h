// One game in flight, as fastchess's Match: its position, the two seats (agent instance, pending
// ticket, deadline), the clocks and adjudication state, and how it ended; and what a game does
// each tick: ask the side to move, take its answer, judge the deadline and the clock, play the
// move (or the deadline policy's substitute), and end by the rules, adjudication or a failure.
// The runner (runner.cpp) makes matches, calls them from its tick loop and closes them.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "arena/config/config.h"
#include "arena/tournament/adjudication.h"
#include "arena/tournament/events.h"
#include "arena/tournament/schedule.h"
#include "games/game.h"

namespace arena::tournament {

using SteadyClock = std::chrono::steady_clock;

// Seconds from a to b.
inline double seconds_between(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

class RefereeDesk;
struct RefereeScore;
class ResultsWriter;

// What a match needs from the run it belongs to.
struct MatchContext {
  const config::TournamentConfig& config;
  ResultsWriter& results;
  RefereeDesk& referee;
  std::function<void()> on_ready;  // a ticket resolved: wakes the tick loop (any thread)
  int64_t deadline_misses = 0;     // requests still unanswered at their deadline, this run
  int64_t moves = 0;               // moves played this run
  std::string fatal;               // an I/O error that ends the run
  // Emits an event (to the log and the observers); a failure is kept in `fatal`.
  void emit(EventBody body);
};

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
  // Cancels the request in progress; it drains until its agent resolves it.
  void cancel();
};

// The last move's event waits here for the referee's score of the position after it. Until it
// comes (or its timeout) the next answer is held, so the rules see every ply in order, exactly as
// without the wait.
struct RefereeWait {
  int32_t ply = 0;
  bool first_side = true;
  std::optional<int32_t> player_cp;  // the mover's own score (the fallback)
  MoveEvent event;
  SteadyClock::time_point since{};
};

// A move the deadline policy chose instead of the agent's answer, and why the answer was not played.
struct Substitute {
  config::DeadlinePolicy policy = config::DeadlinePolicy::RandomMove;
  agents::MoveFailure failure;
};

class Match {
 public:
  Match(MatchContext& context, const ScheduledGame& spec, std::unique_ptr<games::Game> game);

  // The game's start: the rules may end it at once (a finished start position).
  void check_start();
  // Asks the side to move, unless it has a request in progress (or no agent).
  void ask(SteadyClock::time_point now, SteadyClock::time_point tick_deadline);
  // Takes a ready answer (held while the referee scores the move before it), then judges the
  // deadline and the clock of the request in progress.
  void step(SteadyClock::time_point now);
  // The referee's score for the move the game waits on (null: none came in time); then the
  // move's event and the adjudication rules for that move.
  void settle_referee(const RefereeScore* score);
  // The earliest of `wake` and this game's next deadline, clock flag or referee timeout.
  SteadyClock::time_point next_wake(SteadyClock::time_point wake) const;
  // Cancels both seats' requests (the game is over).
  void cancel_requests();
  // Whether a cancelled request is still running.
  bool draining() const;

  // Ends the game: `loser` 0 / 1 loses, or -1 for a draw.
  void finish(int loser, const std::string& why, const std::string& pgn_termination);
  // Ends the game as unfinished ("*").
  void interrupt(const std::string& why);
  // Ends the game by a failure of `side`'s agent (the reason and termination follow the kind).
  void fail(int side, agents::FailureKind kind, const std::string& message);
  // The game_end event.
  GameEnd end_event() const;

  // The seat whose turn it is.
  int side_to_move() const { return game->side_to_move() == games::Side::First ? 0 : 1; }
  // The current position's legal moves, computed once per ply and shared with the agent's request.
  std::shared_ptr<const agents::LegalMoves> legal_moves();

  ScheduledGame spec;
  std::string id;
  std::unique_ptr<games::Game> game;
  std::array<Seat, 2> seats;  // [0] plays first (white / Cho)
  std::vector<std::string> moves;
  std::optional<std::array<int64_t, 2>> clock_ms;  // time left, when the tournament has clocks
  bool use_referee = false;                        // false from the referee's first failure in this game on
  std::optional<RefereeWait> referee_wait;
  // The end, once decided.
  bool over = false;
  std::string result, reason, termination, failure_agent;
  std::optional<agents::FailureKind> failure_kind;  // with failure_agent: the failure that ended it
  SteadyClock::time_point closing_since{};          // when the end was decided (for draining agents)

 private:
  void answer(agents::MoveResult result, SteadyClock::time_point now);
  void check_deadlines(SteadyClock::time_point now);
  // Charges `latency` to the side's clock and adds the increment; false (and the game lost) when
  // the time ran out.
  bool charge_clock(int side, double latency);
  void play(const std::string& uci, const agents::MoveResult& result, double latency,
            const std::optional<Substitute>& substitute = std::nullopt);
  // Plays the deadline policy's move for the side to move, whose answer failed with `failure`.
  void play_substitute(agents::MoveFailure failure, double latency);
  // Loses on time: `side`'s request is cancelled.
  void lose_on_time(int side, const std::string& why);
  void check_end(bool first_side, std::optional<int32_t> score_cp);

  MatchContext& ctx_;
  AdjudicationTracker adjudication_;
  std::shared_ptr<const agents::LegalMoves> legal_;  // of the current position, null until asked
};

// "g0001" for index 0.
std::string game_id(int32_t index);
// Whether `uci` is a pass (the same square twice, e.g. "e2e2" or "e10e10").
bool is_pass_move(const std::string& uci);

}  // namespace arena::tournament
