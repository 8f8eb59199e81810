// Engine metrics over time: each sample reads every engine's MetricsSnapshot and reports what
// happened since the previous sample (TTFT quantiles and mean batch size from the histogram
// deltas, prompt and generation tokens per second, prefix hits and preemptions since then) with
// the current queue, running and KV numbers. Samples go to metrics.csv (one row per engine) and
// to observers as `metrics` events. The one sampler of arena: the runner samples per tick, the
// board server on its own timer when no tournament runs (`arena serve`).
#pragma once

#include <cstdio>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "arena/models/engine_source.h"
#include "arena/tournament/events.h"
#include "engine/api.h"

namespace arena::tournament {

// A sample: the `metrics` event's numbers (deadline_misses unset) and two more for metrics.csv.
struct EngineSample : MetricsEvent {
  int64_t prefix_hits = 0;  // tokens, since the last sample
  int64_t steps = 0;        // since the last sample
};

class MetricsSampler {
 public:
  explicit MetricsSampler(std::vector<models::EngineSource> engines);
  ~MetricsSampler();

  // Starts metrics.csv at `path` (appending when it exists, for a resumed run); without it the
  // samples are only returned.
  std::expected<void, std::string> open_csv(const std::filesystem::path& path);
  // Samples every engine at `now` (seconds, on any fixed origin); writes the CSV rows tagged with
  // `tick` and the runner's own cumulative deadline misses.
  std::vector<EngineSample> sample(double now, int64_t tick, int64_t runner_deadline_misses);
  // The latest samples.
  const std::vector<EngineSample>& latest() const { return latest_; }
  bool empty() const { return engines_.empty(); }
  // The sampled engines' model names.
  std::vector<std::string> models() const;

  // A sample as a `metrics` event (docs/events.md); `runner_deadline_misses` null without a runner.
  static MetricsEvent to_event(const EngineSample& s, std::optional<int64_t> runner_deadline_misses);

 private:
  std::vector<models::EngineSource> engines_;
  std::vector<engine::MetricsSnapshot> previous_;
  std::vector<double> previous_time_;
  std::vector<EngineSample> latest_;
  std::FILE* csv_ = nullptr;
};

}  // namespace arena::tournament
