// Which replica of a fleet takes a request: the three routing policies as one pure function of
// the fleet's state (loads, health), so that tests can check each choice. prefix_affinity is a
// consistent-hash ring (each replica at 64 x weight points hashed from its URL and the seed) with
// bounded loads (Mirrokni, Thorup and Zadimoghaddam, "Consistent Hashing with Bounded Loads"):
// the request goes to the first replica clockwise from its key's hash whose in-flight count stays
// within 1.25x its weighted share of the mean; a full one passes the request on along the ring.
// Requests sharing a prefix thus land where its KV blocks are cached, unless that replica is
// already overloaded. Hashes are FNV-1a 64 with a final mix: the same on every platform and run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent_config.h"

namespace agents::backend {

// FNV-1a 64 of `text` after `seed`, mixed (splitmix64's finaliser) so that near keys spread.
uint64_t stable_hash(std::string_view text, uint64_t seed = 0);

// The ring: sorted points, each owned by a replica index.
class ReplicaRing {
 public:
  static constexpr int32_t kPointsPerWeight = 64;
  // Replica i is `urls[i]` with `weights[i]` (at least 1) points x kPointsPerWeight.
  ReplicaRing(const std::vector<std::string>& urls, const std::vector<int32_t>& weights, uint64_t seed);
  // Every replica once, in ring order clockwise from `key`'s point (the first owns the key).
  std::vector<size_t> walk(uint64_t key) const;
  size_t size() const { return num_replicas_; }

 private:
  struct Point {
    uint64_t at;
    size_t replica;
  };
  std::vector<Point> points_;
  size_t num_replicas_ = 0;
};

// What the policy sees of each replica when it chooses.
struct ReplicaView {
  int32_t in_flight = 0;
  int32_t weight = 1;
  bool usable = true;  // healthy, and not already tried for this request
};

// A load factor above 1: a replica takes a request while its in-flight count (with this request)
// is at most this times its weighted share of the fleet's (with this request), rounded up.
inline constexpr double kBoundedLoadFactor = 1.25;

// The replica for a request: `key` is the hash of its affinity key (prefix_affinity), `turn` a
// counter bumped per request (round_robin's next, least_loaded's tie-break). nullopt when no
// replica is usable.
std::optional<size_t> choose_replica(Routing routing, const ReplicaRing& ring,
                                     const std::vector<ReplicaView>& replicas, uint64_t key, uint64_t turn);

}  // namespace agents::backend
