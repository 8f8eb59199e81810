// /metrics for the fleets' replicas (agents/backend/replica_health.h): per replica, labelled by
// its URL, whether it is in the fleet, requests in flight, requests, errors, times taken out, the
// TTFT sum and count of its answers, and the prompt and cached tokens it reported (cached /
// prompt is its prefix hit rate). Nothing when no agent uses a fleet.
#pragma once

#include <span>
#include <string>

#include "agents/backend/replica_health.h"

namespace arena::server {

std::string render_replica_metrics(std::span<const agents::backend::ReplicaStats> replicas);

// The same for the process's replicas (ReplicaRegistry::global()).
std::string render_replica_metrics();

}  // namespace arena::server
