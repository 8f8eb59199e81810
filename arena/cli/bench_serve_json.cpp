// The rows of `arena bench serve --json` (bench_serve_json.h).
#include "arena/cli/bench_serve_json.h"

namespace arena::cli {

nlohmann::json to_json(const engine::ServeRunStats& s) {
  return {{"seconds", s.seconds},
          {"requests", s.num_requests},
          {"prompt_tokens", s.prompt_tokens},
          {"generated_tokens", s.generated_tokens},
          {"requests_per_s", s.requests_per_second},
          {"prompt_tokens_per_s", s.prompt_tokens_per_second},
          {"generated_tokens_per_s", s.generated_tokens_per_second},
          {"ttft_p50_s", s.ttft_p50},
          {"ttft_p99_s", s.ttft_p99},
          {"queue_p50_s", s.queue_p50},
          {"queue_p99_s", s.queue_p99},
          {"prefix_hit_rate", s.prefix_hit_rate},
          {"kv_blocks_peak", s.kv_blocks_peak},
          {"kv_blocks_total", s.kv_blocks_total},
          {"kv_waste", s.kv_waste},
          {"kv_waste_per_step", s.kv_waste_per_step},
          {"preemptions", s.preemptions},
          {"deadline_misses", s.deadline_misses},
          {"failed_requests", s.failed}};
}

// Over HTTP only what the client sees: no queue, KV or preemption figures.
nlohmann::json to_json_http(const engine::ServeRunStats& s) {
  nlohmann::json j = to_json(s);
  for (const char* engine_only : {"queue_p50_s", "queue_p99_s", "kv_blocks_peak", "kv_blocks_total",
                                  "kv_waste", "kv_waste_per_step", "preemptions", "deadline_misses"})
    j.erase(engine_only);
  if (!s.prefix_hit_known) j["prefix_hit_rate"] = nullptr;
  return j;
}

}  // namespace arena::cli
