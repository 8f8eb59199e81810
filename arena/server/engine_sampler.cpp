// EngineSampler: interval samples from cumulative engine metrics.
#include "arena/server/engine_sampler.h"

namespace arena::server {

namespace {

// The histogram of observations between `prev` and `cur` (same bounds).
engine::Histogram delta(const engine::Histogram& cur, const engine::Histogram* prev) {
  engine::Histogram d = cur;
  if (!prev || prev->counts.size() != cur.counts.size()) return d;
  for (size_t i = 0; i < d.counts.size(); ++i) d.counts[i] -= prev->counts[i];
  d.count -= prev->count;
  d.sum -= prev->sum;
  return d;
}

}  // namespace

EngineSampler::EngineSampler(std::vector<models::EngineSource> engines) : engines_(std::move(engines)) {}

nlohmann::json EngineSampler::make_sample(const std::string& model, const engine::MetricsSnapshot& cur,
                                          const engine::MetricsSnapshot* prev, double dt, double now) {
  const engine::Histogram ttft = delta(cur.time_to_first_token, prev ? &prev->time_to_first_token : nullptr);
  const engine::Histogram batch = delta(cur.batch_size, prev ? &prev->batch_size : nullptr);
  auto rate = [&](int64_t c, int64_t p) { return prev && dt > 0 ? double(c - p) / dt : 0.0; };
  const int64_t queries = cur.prefix_cache_queries - (prev ? prev->prefix_cache_queries : 0);
  const int64_t hits = cur.prefix_cache_hits - (prev ? prev->prefix_cache_hits : 0);
  nlohmann::json s = {
      {"type", "metrics"},
      {"source", "server"},
      {"time", now},
      {"model", model},
      {"queue", cur.num_requests_waiting},
      {"running", cur.num_requests_running},
      {"batch", batch.count > 0 ? batch.mean() : 0.0},
      {"ttft_p50", ttft.count > 0 ? nlohmann::json(ttft.quantile(0.5)) : nlohmann::json()},
      {"ttft_p99", ttft.count > 0 ? nlohmann::json(ttft.quantile(0.99)) : nlohmann::json()},
      {"prompt_tps", rate(cur.prompt_tokens, prev ? prev->prompt_tokens : 0)},
      {"gen_tps", rate(cur.generation_tokens, prev ? prev->generation_tokens : 0)},
      {"kv_used", cur.kv_blocks_used},
      {"kv_total", cur.kv_blocks_total},
      {"prefix_hit_rate", queries > 0 ? nlohmann::json(double(hits) / double(queries)) : nlohmann::json()},
      {"preemptions", cur.num_preemptions - (prev ? prev->num_preemptions : 0)},  // since the last sample
      {"deadline_misses", cur.deadline_misses},
  };
  return s;
}

std::vector<nlohmann::json> EngineSampler::sample(double now) {
  std::vector<nlohmann::json> out;
  for (const models::EngineSource& source : engines_) {
    if (!source.engine) continue;
    const engine::MetricsSnapshot cur = source.engine->metrics();
    auto it = previous_.find(source.model);
    const Previous* prev = it == previous_.end() ? nullptr : &it->second;
    out.push_back(
        make_sample(source.model, cur, prev ? &prev->snapshot : nullptr, prev ? now - prev->time : 0, now));
    previous_[source.model] = Previous{cur, now};
  }
  return out;
}

}  // namespace arena::server
