// A model served by a fleet of OpenAI-compatible replicas (vLLM, SGLang, llama-server, arena
// serve), routed in the client: one OpenAI backend per replica, a policy choosing the replica of
// each request (replica_ring.h: prefix_affinity, least_loaded, round_robin), and health
// (replica_health.h): a replica that fails (connection refused, 5xx, timeout) is taken out and
// its request moves on to the next replica in the policy's order at once; a 429 moves it on
// without taking the replica out. When every replica has been tried or is out, the request waits
// the backoff and tries again, max_retries rounds at most, then fails as a backend error naming
// each replica's trouble. The replica that answered is reported in CompletionResult::replica.
#pragma once

#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "agents/backend/backend.h"
#include "agents/backend/replica_health.h"

namespace agents::backend {

// A backend for the fleet `config.endpoints`; `keys[i]` is replica i's API key (nullopt: none).
// An error names a bad URL or setting.
std::expected<std::shared_ptr<LlmBackend>, std::string> make_fleet_backend(
    const OpenAiBackendConfig& config, const std::vector<std::optional<std::string>>& keys,
    ReplicaRegistry& registry = ReplicaRegistry::global());

// What prefix_affinity routes `request` on: its `affinity` when set, else its first prefix block
// (the system message of a chat; a plain prompt up to its first blank line, 4 KiB at most).
std::string affinity_key(const CompletionRequest& request);

}  // namespace agents::backend
