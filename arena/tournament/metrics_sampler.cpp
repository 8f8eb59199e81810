// Engine metrics samples and metrics.csv (see metrics_sampler.h).
#include "arena/tournament/metrics_sampler.h"

#include <fmt/core.h>

namespace arena::tournament {
namespace {

// The observations of `now` not yet in `before` (same bucket bounds).
engine::Histogram delta(const engine::Histogram& now, const engine::Histogram& before) {
  engine::Histogram d = now;
  if (before.counts.size() != now.counts.size()) return d;
  for (size_t i = 0; i < d.counts.size(); ++i) d.counts[i] -= before.counts[i];
  d.count -= before.count;
  d.sum -= before.sum;
  return d;
}

}  // namespace

MetricsSampler::MetricsSampler(std::vector<models::EngineSource> engines) : engines_(std::move(engines)) {
  std::erase_if(engines_, [](const models::EngineSource& e) { return e.engine == nullptr; });
  previous_.resize(engines_.size());
  previous_time_.assign(engines_.size(), -1.0);
}

std::vector<std::string> MetricsSampler::models() const {
  std::vector<std::string> out;
  for (const auto& e : engines_) out.push_back(e.model);
  return out;
}

MetricsSampler::~MetricsSampler() {
  if (csv_) std::fclose(csv_);
}

std::expected<void, std::string> MetricsSampler::open_csv(const std::filesystem::path& path) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec) && std::filesystem::file_size(path, ec) > 0;
  csv_ = std::fopen(path.c_str(), "a");
  if (!csv_) return std::unexpected(fmt::format("cannot write '{}'", path.string()));
  if (!existed)
    std::fputs(
        "time_s,tick,model,queue,running,batch,ttft_p50_s,ttft_p99_s,prompt_tps,gen_tps,kv_used,kv_total,"
        "kv_usage,prefix_hits,prefix_hit_rate,preemptions,engine_deadline_misses,runner_deadline_misses,"
        "steps\n",
        csv_);
  return {};
}

std::vector<EngineSample> MetricsSampler::sample(double now, int64_t tick, int64_t runner_deadline_misses) {
  latest_.clear();
  for (size_t i = 0; i < engines_.size(); ++i) {
    const engine::MetricsSnapshot m = engines_[i].engine->metrics();
    const engine::MetricsSnapshot& p = previous_[i];
    const double dt = previous_time_[i] < 0 ? 0.0 : now - previous_time_[i];
    EngineSample s;
    s.model = engines_[i].model;
    s.queue = m.num_requests_waiting;
    s.running = m.num_requests_running;
    const engine::Histogram ttft = delta(m.time_to_first_token, p.time_to_first_token);
    const engine::Histogram& ttft_use = ttft.count > 0 ? ttft : m.time_to_first_token;
    s.ttft_p50 = ttft_use.quantile(0.5);
    s.ttft_p99 = ttft_use.quantile(0.99);
    const engine::Histogram batch = delta(m.batch_size, p.batch_size);
    s.batch = batch.mean();
    s.steps = m.num_steps - p.num_steps;
    if (dt > 0) {
      s.prompt_tps = double(m.prompt_tokens - p.prompt_tokens) / dt;
      s.gen_tps = double(m.generation_tokens - p.generation_tokens) / dt;
    }
    s.kv_used = m.kv_blocks_used;
    // Before its first step an engine may not have reported its block count yet.
    s.kv_total = m.kv_blocks_total > 0 ? m.kv_blocks_total : engines_[i].engine->num_kv_blocks();
    s.kv_window_used = m.kv_window_blocks_used;
    s.kv_window_total = m.kv_window_blocks_total;
    const int64_t queries = m.prefix_cache_queries - p.prefix_cache_queries;
    s.prefix_hits = m.prefix_cache_hits - p.prefix_cache_hits;
    s.prefix_hit_rate = queries > 0 ? double(s.prefix_hits) / double(queries) : m.prefix_hit_rate();
    s.preemptions = m.num_preemptions - p.num_preemptions;
    s.engine_deadline_misses = m.deadline_misses;
    previous_[i] = m;
    previous_time_[i] = now;
    if (csv_)
      std::fputs(
          fmt::format(
              "{:.3f},{},{},{},{},{:.2f},{:.4f},{:.4f},{:.1f},{:.1f},{},{},{:.4f},{},{:.4f},{},{},{},{}\n",
              now, tick, s.model, s.queue, s.running, s.batch, s.ttft_p50, s.ttft_p99, s.prompt_tps,
              s.gen_tps, s.kv_used, s.kv_total, s.kv_total ? double(s.kv_used) / s.kv_total : 0.0,
              s.prefix_hits, s.prefix_hit_rate, s.preemptions, s.engine_deadline_misses,
              runner_deadline_misses, s.steps)
              .c_str(),
          csv_);
    latest_.push_back(s);
  }
  if (csv_) std::fflush(csv_);
  return latest_;
}

MetricsEvent MetricsSampler::to_event(const EngineSample& s, std::optional<int64_t> runner_deadline_misses) {
  MetricsEvent event = s;
  event.deadline_misses = runner_deadline_misses;
  return event;
}

}  // namespace arena::tournament
