// The live progress line: games done/total with a bar, games in flight, moves per second, each
// engine's queue depth, TTFT p50/p99, batch size and prefix hit rate, deadline misses and the
// ETA. On a terminal it is redrawn in place (at most 4 times a second); when stdout is not a
// terminal it becomes an spdlog line every `log_period`. Quiet mode prints nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "arena/tournament/metrics_sampler.h"

namespace arena::tournament {

struct StatusInfo {
  int32_t done = 0, total = 0, in_flight = 0;
  int32_t done_this_run = 0;  // games finished since this run began (for the ETA)
  double elapsed_s = 0;       // since this run began
  int64_t moves = 0;          // moves played since this run began
  int64_t deadline_misses = 0;
  std::vector<EngineSample> engines;
};

// The status text (no newline), e.g. "[#####.....] 12/40 games, 4 playing | 3.2 moves/s | ...".
std::string format_status(const StatusInfo& info);

class StatusLine {
 public:
  StatusLine(bool quiet, bool tty, std::chrono::milliseconds log_period = std::chrono::seconds(10));
  ~StatusLine();
  // Shows `info` if the last update is long enough ago (or `force`).
  void update(const StatusInfo& info, bool force = false);
  // Ends the line on a terminal.
  void finish();

 private:
  bool quiet_, tty_;
  std::chrono::milliseconds period_;
  std::chrono::steady_clock::time_point last_{};
  bool drawn_ = false;
};

}  // namespace arena::tournament
