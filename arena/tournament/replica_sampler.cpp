// Replica samples: the deltas of each replica's counters since the last sample (replica_sampler.h).
#include "arena/tournament/replica_sampler.h"

namespace arena::tournament {

std::vector<MetricsEvent> ReplicaSampler::sample() {
  std::vector<MetricsEvent> out;
  for (const agents::backend::ReplicaStats& now : registry_.snapshot()) {
    const agents::backend::ReplicaStats before = previous_[now.url];  // zeros the first time
    MetricsEvent e;
    e.source = "replica";
    e.model = now.url;
    e.running = now.in_flight;
    e.requests = now.requests - before.requests;
    e.errors = now.errors - before.errors;
    e.healthy = now.healthy;
    const int64_t answered = now.answered - before.answered;
    if (answered > 0) e.ttft_p50 = (now.ttft_seconds_sum - before.ttft_seconds_sum) / double(answered);
    const int64_t prompt = now.prompt_tokens - before.prompt_tokens;
    const int64_t cached = now.cached_tokens - before.cached_tokens;
    // With nothing new answered the rate so far, so that the line does not drop to zero.
    if (prompt > 0)
      e.prefix_hit_rate = double(cached) / double(prompt);
    else if (now.prompt_tokens > 0)
      e.prefix_hit_rate = double(now.cached_tokens) / double(now.prompt_tokens);
    previous_[now.url] = now;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace arena::tournament
