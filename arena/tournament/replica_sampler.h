// Fleet replicas over time (agents/backend/replica_health.h): each sample reads every replica of
// the registry and reports, as a `metrics` event with source "replica" and the replica's URL as
// its model, what happened since the previous sample: requests sent and errors, the mean TTFT of
// the answers, and the prefix hit rate the replica reported (cached / prompt tokens), with its
// in-flight count and health now. The dashboard draws them as one panel per replica.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "agents/backend/replica_health.h"
#include "arena/tournament/events.h"

namespace arena::tournament {

class ReplicaSampler {
 public:
  explicit ReplicaSampler(
      const agents::backend::ReplicaRegistry& registry = agents::backend::ReplicaRegistry::global())
      : registry_(registry) {}

  // One event per replica (none when no agent uses a fleet).
  std::vector<MetricsEvent> sample();

 private:
  const agents::backend::ReplicaRegistry& registry_;
  std::map<std::string, agents::backend::ReplicaStats> previous_;  // by URL
};

}  // namespace arena::tournament
