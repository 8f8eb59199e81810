// Engine metrics over time: each sample reads every engine's MetricsSnapshot and reports what
// happened since the previous sample (TTFT quantiles and mean batch size from the histogram
// deltas, prompt and generation tokens per second, prefix hits and preemptions since then) with
// the current queue, running and KV numbers. Samples go to metrics.csv (one row per engine) and
// to observers as `metrics` events.
#pragma once

#include <cstdio>
#include <expected>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arena/tournament/runner.h"
#include "engine/api.h"

namespace arena::tournament {

struct EngineSample {
  std::string model;
  int32_t queue = 0, running = 0;
  double batch = 0;  // mean sequences per step since the last sample (0 when no step)
  double ttft_p50 = 0, ttft_p99 = 0;
  double prompt_tps = 0, gen_tps = 0;
  int32_t kv_used = 0, kv_total = 0;
  double prefix_hit_rate = 0;   // since the last sample (cumulative when nothing was looked up)
  int64_t prefix_hits = 0;      // tokens, since the last sample
  int64_t preemptions = 0;      // since the last sample
  int64_t deadline_misses = 0;  // the engine's, cumulative
  int64_t steps = 0;            // since the last sample
};

class MetricsSampler {
 public:
  explicit MetricsSampler(std::vector<EngineSource> engines);
  ~MetricsSampler();

  // Starts metrics.csv at `path` (appending when it exists, for a resumed run).
  std::expected<void, std::string> open_csv(const std::filesystem::path& path);
  // Samples every engine at `now` (seconds since the run began); writes the CSV rows tagged with
  // `tick` and the runner's own cumulative deadline misses.
  std::vector<EngineSample> sample(double now, int64_t tick, int64_t runner_deadline_misses);
  // The latest samples.
  const std::vector<EngineSample>& latest() const { return latest_; }
  bool empty() const { return engines_.empty(); }
  // The sampled engines' model names.
  std::vector<std::string> models() const;

  // A sample as a `metrics` event (docs/events.md).
  static nlohmann::json to_event(const EngineSample& s, int64_t runner_deadline_misses);

 private:
  std::vector<EngineSource> engines_;
  std::vector<engine::MetricsSnapshot> previous_;
  std::vector<double> previous_time_;
  std::vector<EngineSample> latest_;
  std::FILE* csv_ = nullptr;
};

}  // namespace arena::tournament
