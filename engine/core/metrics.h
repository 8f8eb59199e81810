// Serving metrics, named after vLLM's: queue sizes, KV block usage, prefix-cache queries and
// hits (in tokens), preemptions, token counts, latency, batch-size and tokens-per-step histograms, deadline
// misses. The engine thread updates one MetricsSnapshot; callers get copies.
#pragma once

#include <cstdint>
#include <vector>

namespace engine {

// Counts of observations per bucket (Prometheus style), with their count and sum.
struct Histogram {
  std::vector<double> bounds;   // ascending upper bounds of the buckets
  std::vector<int64_t> counts;  // [bounds.size() + 1]; the last bucket holds values above every bound
  int64_t count = 0;
  double sum = 0;

  // A histogram with these bucket bounds and no observations.
  static Histogram with_bounds(std::vector<double> bounds);
  // Records one value.
  void observe(double value);
  // Mean of the observations (0 when none).
  double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
  // The q-quantile (0..1) estimated by interpolating within its bucket (0 when empty).
  double quantile(double q) const;
};

// Bucket bounds for latencies in seconds (1 ms .. 640 s).
std::vector<double> latency_buckets();
// Bucket bounds for per-step batch sizes (1 .. 1024).
std::vector<double> batch_size_buckets();
// Bucket bounds for tokens per step, vLLM's for iteration_tokens_total (1 .. 16384).
std::vector<double> iteration_tokens_buckets();

struct MetricsSnapshot {
  int32_t num_requests_running = 0;
  int32_t num_requests_waiting = 0;
  int32_t kv_blocks_used = 0;
  int32_t kv_blocks_total = 0;
  int32_t kv_blocks_peak = 0;  // most blocks in use after any step
  // The sliding-window layers' own blocks (kv_budget.h), 0 when they share the blocks above.
  int32_t kv_window_blocks_used = 0;
  int32_t kv_window_blocks_total = 0;
  int64_t prefix_cache_queries = 0;  // tokens looked up at admission (prefix cache on)
  int64_t prefix_cache_hits = 0;     // of which served from the cache
  int64_t num_preemptions = 0;
  int64_t prompt_tokens = 0;          // prompt tokens of admitted requests
  int64_t generation_tokens = 0;      // tokens generated (sampled or forced)
  int64_t num_requests_finished = 0;  // stop or length
  int64_t num_requests_cancelled = 0;
  int64_t num_requests_failed = 0;
  int64_t num_requests_rejected = 0;  // submit refused (queue full, bad request)
  int64_t deadline_misses = 0;        // requests finished after their deadline
  int64_t num_steps = 0;
  int64_t kv_slots_allocated = 0;    // sum over steps of allocated slots (used blocks x block size)
  int64_t kv_slots_empty = 0;        // sum over steps of allocated slots holding no token
  double kv_slot_seconds = 0;        // integral over step time of allocated slots
  double kv_empty_slot_seconds = 0;  // integral over step time of allocated slots holding no token
  Histogram time_to_first_token = Histogram::with_bounds(latency_buckets());
  Histogram inter_token_latency = Histogram::with_bounds(latency_buckets());
  Histogram queue_time = Histogram::with_bounds(latency_buckets());
  Histogram e2e_latency = Histogram::with_bounds(latency_buckets());
  Histogram batch_size = Histogram::with_bounds(batch_size_buckets());  // sequences per step
  // Tokens per step (prompt chunks + decodes), as vLLM's iteration_tokens_total.
  Histogram iteration_tokens = Histogram::with_bounds(iteration_tokens_buckets());

  // Fraction of KV blocks in use (0..1).
  double kv_usage() const { return kv_blocks_total ? double(kv_blocks_used) / kv_blocks_total : 0.0; }
  // Fraction of prefix-cache query tokens that hit (0 when no query).
  double prefix_hit_rate() const {
    return prefix_cache_queries ? double(prefix_cache_hits) / double(prefix_cache_queries) : 0.0;
  }
  // Fraction of the allocated KV memory that held no token, averaged over the engine's working
  // time (each step's state weighted by how long it lasted): memory wasted is memory x time.
  double kv_waste() const { return kv_slot_seconds > 0 ? kv_empty_slot_seconds / kv_slot_seconds : 0.0; }
  // The same averaged over steps, each counting once whatever its length (a 512-token prefill
  // step weighs as much as a one-token decode step).
  double kv_waste_per_step() const {
    return kv_slots_allocated ? double(kv_slots_empty) / double(kv_slots_allocated) : 0.0;
  }
};

}  // namespace engine
