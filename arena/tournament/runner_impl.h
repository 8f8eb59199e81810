// The tournament runner's internals (runner.cpp): the Runner owns the agent pool, the schedule,
// the games in flight (match.h), the referee (referee_desk.h), the results (results_writer.h),
// the metrics sampler and the status line, and runs the tick loop. Not part of the runner's
// interface: include runner.h instead.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "arena/tournament/match.h"
#include "arena/tournament/metrics_sampler.h"
#include "arena/tournament/referee_desk.h"
#include "arena/tournament/replica_sampler.h"
#include "arena/tournament/results_writer.h"
#include "arena/tournament/runner.h"
#include "arena/tournament/schedule.h"
#include "arena/tournament/standings.h"
#include "arena/tournament/status_line.h"

namespace arena::tournament::detail {

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

class Runner {
 public:
  Runner(const config::TournamentConfig& config, std::vector<Participant> participants,
         std::vector<EngineSource> engines, const RunOptions& options);
  ~Runner();

  std::expected<RunSummary, std::string> run();

 private:
  std::expected<void, std::string> set_up();
  // Each participant's first instance, and which of the tournament's variants it plays.
  std::expected<std::vector<SchedulePlayer>, std::string> make_players();
  std::expected<void, std::string> check_resume(const std::vector<Event>& existing);

  std::unique_ptr<agents::Agent> take_agent(int32_t participant, std::string* error);
  void start_game(int32_t index);
  // Seats both agents of a new game (a seat that cannot be filled loses the game).
  void seat_agents(Match& g);
  // One tick: every game whose side to move is idle asks its agent; the engines are sampled.
  void tick(SteadyClock::time_point now);
  // Answers in, deadlines and clocks, ended games out.
  void collect(SteadyClock::time_point now);
  std::expected<void, std::string> close_game(std::unique_ptr<Match> g);
  void release_closing(bool force);
  // Records the games still in flight unfinished, lets cancelled agents stop, ends the run.
  RunSummary wind_down(bool interrupted);
  SteadyClock::time_point next_wake(SteadyClock::time_point next_tick) const;
  // The standings now; the `final` ones run every configured rating simulation, the others at
  // most kLiveSimulations.
  Standings standings(bool final = false) const;
  static constexpr int32_t kLiveSimulations = 200;
  StatusInfo status_info() const;

  const config::TournamentConfig& config_;
  std::vector<Participant> participants_;
  RunOptions options_;
  MetricsSampler sampler_;
  ReplicaSampler replica_sampler_;  // the fleets' replicas, for the dashboard
  std::shared_ptr<Notifier> notifier_;
  StatusLine status_;
  ResultsWriter results_;
  RefereeDesk referee_;
  MatchContext match_context_;

  std::vector<ScheduledGame> schedule_;
  std::vector<std::string> names_;
  std::vector<std::vector<std::unique_ptr<agents::Agent>>> pool_;  // free instances per participant
  std::deque<int32_t> pending_;                                    // schedule indices still to play, in order
  std::vector<std::unique_ptr<Match>> active_;                     // games in flight
  std::vector<std::unique_ptr<Match>> closing_;                    // ended games whose agents are still busy
  std::vector<std::unique_ptr<agents::Agent>> abandoned_;
  SteadyClock::time_point run_start_ = SteadyClock::now();
  SteadyClock::time_point next_tick_ = SteadyClock::now();
  double last_metrics_event_ = -1e9;
  int64_t ticks_ = 0;
  int32_t done_this_run_ = 0;
  bool sprt_stopped_ = false;
};

}  // namespace arena::tournament::detail
