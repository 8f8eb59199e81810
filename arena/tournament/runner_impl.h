// The tournament runner's internals, shared by runner.cpp (set-up, the tick loop, the end of a
// run) and runner_moves.cpp (asking agents, playing their answers, deadlines, clocks, the end of
// a game). Not part of the runner's interface: include runner.h instead.
#pragma once

#include <fmt/core.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "arena/build_info.h"
#include "arena/tournament/event_log.h"
#include "arena/tournament/game_record.h"
#include "arena/tournament/live_game.h"
#include "arena/tournament/metrics_sampler.h"
#include "arena/tournament/referee.h"
#include "arena/tournament/results_files.h"
#include "arena/tournament/schedule.h"
#include "arena/tournament/standings.h"
#include "arena/tournament/status_line.h"
#include "games/janggi/fen.h"
#include "games/janggi/rules.h"

namespace arena::tournament::detail {

using std::chrono::duration;
using std::chrono::milliseconds;

// How long an unanswered request may run under the `wait` policy before it counts as a timeout,
// and how long a cancelled agent may take to resolve before its instance is abandoned.
inline constexpr milliseconds kWaitCap{600000};
inline constexpr milliseconds kDrainCap{30000};

// What agents call when a ticket resolves: one flag and one condition variable for the loop.
struct Notifier {
  std::mutex mutex;
  std::condition_variable cv;
  bool pending = false;
  // Sets the flag and wakes the loop (any thread, never blocking for long).
  void notify() {
    {
      std::lock_guard lock(mutex);
      pending = true;
    }
    cv.notify_one();
  }
};

// Seconds from a to b.
inline double seconds_between(SteadyClock::time_point a, SteadyClock::time_point b) {
  return duration<double>(b - a).count();
}

// The FEN's halfmove clock and fullmove number (the last two fields).
std::pair<int64_t, int64_t> fen_counters(const std::string& fen);
// The deadline policy as the event log names it.
const char* policy_name(config::DeadlinePolicy p);
// Whether `uci` is a pass (the same square twice, e.g. "e2e2" or "e10e10").
bool is_pass_move(const std::string& uci);

class Runner {
 public:
  Runner(const config::TournamentConfig& config, std::vector<Participant> participants,
         std::vector<EngineSource> engines, const RunOptions& options)
      : config_(config),
        participants_(std::move(participants)),
        options_(options),
        sampler_(std::move(engines)),
        notifier_(std::make_shared<Notifier>()),
        status_(options.quiet, ::isatty(STDOUT_FILENO) == 1) {}

  ~Runner() {
    referee_.reset();
    // Agents abandoned with a request in progress go last, after everything that might use them.
    closing_.clear();
    abandoned_.clear();
  }

  std::expected<RunSummary, std::string> run();

 private:
  std::expected<void, std::string> set_up();
  std::expected<void, std::string> check_resume(const std::vector<nlohmann::json>& existing);
  std::expected<void, std::string> emit(nlohmann::json event, bool to_log = true);
  double wall_now() const;

  std::unique_ptr<agents::Agent> take_agent(int32_t participant, std::string* error);
  void start_game(int32_t index);
  void ask(LiveGame& g, SteadyClock::time_point now, SteadyClock::time_point tick_deadline);
  void handle_result(LiveGame& g, agents::MoveResult result, SteadyClock::time_point now);
  void check_deadlines(LiveGame& g, SteadyClock::time_point now);
  void play_substitute(LiveGame& g, const std::string& policy, const std::string& failure_kind,
                       const std::string& failure_message, double latency);
  // Charges `latency` to the side's clock and adds the increment; false (and the game lost) when
  // the time ran out.
  bool charge_clock(LiveGame& g, int side, double latency);
  void play_move(LiveGame& g, const std::string& uci, const agents::MoveResult& result, double latency,
                 const std::string& substitute, const std::string& failure_kind,
                 const std::string& failure_message);
  void fail_agent(LiveGame& g, int side, agents::FailureKind kind, const std::string& message);
  void check_end(LiveGame& g, bool first_side, std::optional<int32_t> score_cp);
  // Sends the position after the move just played to the referee; false when it cannot take it.
  bool ask_referee(LiveGame& g);
  // The referee's score for the move the game waits on (null: none came in time), then the event
  // and the adjudication rules for that move.
  void settle_referee(LiveGame& g, const RefereeScore* score);
  // Takes the referee's scores and expires the waits past their timeout.
  void poll_referee(SteadyClock::time_point now);
  // The referee failed in `g`: logged once, the players' scores from now on.
  void drop_referee(LiveGame& g, const std::string& why);
  std::expected<void, std::string> close_game(std::unique_ptr<LiveGame> g);
  void cancel_requests(LiveGame& g);
  void release_closing(bool force);
  SteadyClock::time_point next_wake(SteadyClock::time_point next_tick) const;
  Standings standings() const;
  StatusInfo status_info() const;

  const config::TournamentConfig& config_;
  std::vector<Participant> participants_;
  RunOptions options_;
  MetricsSampler sampler_;
  std::shared_ptr<Notifier> notifier_;
  StatusLine status_;

  std::vector<ScheduledGame> schedule_;
  std::vector<std::string> names_;
  std::vector<std::vector<std::unique_ptr<agents::Agent>>> pool_;  // free instances per participant
  EventLog log_;
  GameBook book_;
  PgnContext pgn_;
  std::deque<int32_t> pending_;                     // schedule indices still to play, in order
  std::vector<std::unique_ptr<LiveGame>> active_;   // games in flight
  std::vector<std::unique_ptr<LiveGame>> closing_;  // ended games whose agents are still busy
  std::vector<std::unique_ptr<agents::Agent>> abandoned_;
  std::unique_ptr<Referee> referee_;  // null without a referee (or when it could not start)
  bool referee_dead_logged_ = false;
  SteadyClock::time_point run_start_ = SteadyClock::now();
  double last_metrics_event_ = -1e9;
  int64_t ticks_ = 0, moves_this_run_ = 0, deadline_misses_ = 0;
  int32_t done_this_run_ = 0;
  bool sprt_stopped_ = false;
  std::string fatal_;  // an I/O error that ends the run
};

}  // namespace arena::tournament::detail
