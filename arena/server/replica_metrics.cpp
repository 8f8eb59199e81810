// render_replica_metrics: one family at a time, as prometheus.cpp writes the engines'.
#include "arena/server/replica_metrics.h"

#include <fmt/format.h>

#include <functional>

#include "arena/server/prometheus.h"

namespace arena::server {

using agents::backend::ReplicaStats;

std::string render_replica_metrics(std::span<const ReplicaStats> replicas) {
  if (replicas.empty()) return {};
  std::string out;
  const auto family = [&](const char* name, const char* type, const char* help,
                          const std::function<double(const ReplicaStats&)>& value) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    for (const auto& r : replicas)
      out += fmt::format("{}{{replica=\"{}\"}} {}\n", name, prometheus_label(r.url), value(r));
  };
  family("arena:replica_healthy", "gauge", "1 while the replica is in its fleet, 0 while out (probed)",
         [](const ReplicaStats& r) { return r.healthy ? 1.0 : 0.0; });
  family("arena:replica_requests_in_flight", "gauge", "Requests sent to the replica and not answered yet",
         [](const ReplicaStats& r) { return double(r.in_flight); });
  family("arena:replica_requests_total", "counter", "Requests sent to the replica",
         [](const ReplicaStats& r) { return double(r.requests); });
  family("arena:replica_errors_total", "counter", "Requests that failed there (cancellations not counted)",
         [](const ReplicaStats& r) { return double(r.errors); });
  family("arena:replica_taken_out_total", "counter", "Times the replica was taken out of its fleet",
         [](const ReplicaStats& r) { return double(r.times_down); });
  family("arena:replica_time_to_first_token_seconds_sum", "counter", "TTFT summed over the answered requests",
         [](const ReplicaStats& r) { return r.ttft_seconds_sum; });
  family("arena:replica_time_to_first_token_seconds_count", "counter", "Answered requests",
         [](const ReplicaStats& r) { return double(r.answered); });
  family("arena:replica_prompt_tokens_total", "counter", "Prompt tokens the replica reported",
         [](const ReplicaStats& r) { return double(r.prompt_tokens); });
  family("arena:replica_cached_tokens_total", "counter",
         "Prompt tokens it served from its prefix cache (usage.prompt_tokens_details.cached_tokens)",
         [](const ReplicaStats& r) { return double(r.cached_tokens); });
  return out;
}

std::string render_replica_metrics() {
  const auto replicas = agents::backend::ReplicaRegistry::global().snapshot();
  return render_replica_metrics(replicas);
}

}  // namespace arena::server
