// A synthetic agent workload for `arena bench serve`: N agents each ask once per tick; every
// prompt starts with a shared system prompt of S tokens, then the agent's own conversation.
// At tick 0 an agent's prompt is system + U unique tokens; at tick t+1 it is its tick-t prompt,
// its tick-t answer and U new tokens (as an agent's conversation grows). Each answer is G
// greedy tokens (end-of-generation ignored, so every mode does the same work). A tick submits
// all N requests at once and ends when all have answered. Runs through the Engine API only.
#pragma once

#include <cstdint>
#include <expected>
#include <string>

#include "engine/api.h"

namespace engine {

struct ServeWorkload {
  int32_t num_agents = 32;
  int32_t system_tokens = 256;
  int32_t prompt_tokens = 64;  // unique tokens added per agent per tick
  int32_t gen_tokens = 8;
  int32_t ticks = 3;
  double deadline_seconds = 0;  // each request's deadline after its submission; 0 = none
  uint64_t seed = 1;
};

// What one run of the workload measured.
struct ServeRunStats {
  double seconds = 0;
  int64_t num_requests = 0;
  int64_t prompt_tokens = 0;  // prompt tokens submitted (cached or not)
  int64_t generated_tokens = 0;
  double requests_per_second = 0;
  double prompt_tokens_per_second = 0;
  double generated_tokens_per_second = 0;
  double ttft_p50 = 0, ttft_p99 = 0;    // seconds, exact over all requests
  double queue_p50 = 0, queue_p99 = 0;  // seconds
  double prefix_hit_rate = 0;
  int32_t kv_blocks_peak = 0;
  int32_t kv_blocks_total = 0;
  double kv_waste = 0;           // fraction of allocated KV slots holding no token, over time
  double kv_waste_per_step = 0;  // the same, averaged over steps (see MetricsSnapshot)
  int64_t preemptions = 0;
  int64_t deadline_misses = 0;
  int64_t failed = 0;  // requests that did not finish with FinishReason::Length
};

// KV tokens the workload needs when every agent's last prompt and answer are resident at once.
int64_t serve_workload_kv_tokens(const ServeWorkload& workload);

// Runs `workload` on a fresh Engine with `config` over `model`; an error when the engine cannot
// be made or a request is rejected.
std::expected<ServeRunStats, Error> run_serve_workload(LanguageModel& model, const Tokenizer& tokenizer,
                                                       const EngineConfig& config,
                                                       const ServeWorkload& workload);

}  // namespace engine
