// The routing policies as pure functions (replica_ring.h): the ring is fixed by its seed and the
// replicas' URLs, weights set each replica's share of the keys, bounded load passes a request on
// along the ring when its owner is full, round robin cycles, least loaded takes the idlest.
#include "agents/backend/replica_ring.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>

using agents::Routing;
using agents::backend::choose_replica;
using agents::backend::ReplicaRing;
using agents::backend::ReplicaView;
using agents::backend::stable_hash;

namespace {

const std::vector<std::string> kUrls = {"http://a:8000/v1", "http://b:8000/v1", "http://c:8000/v1"};

std::map<size_t, int> owners(const ReplicaRing& ring, int keys) {
  std::map<size_t, int> count;
  for (int k = 0; k < keys; ++k) ++count[ring.walk(stable_hash("prompt " + std::to_string(k)))[0]];
  return count;
}

}  // namespace

TEST_CASE("replica ring: deterministic for a seed, every replica once per walk", "[agents]") {
  const ReplicaRing ring(kUrls, {1, 1, 1}, 7), same(kUrls, {1, 1, 1}, 7), other(kUrls, {1, 1, 1}, 8);
  int moved = 0;
  for (int k = 0; k < 200; ++k) {
    const uint64_t key = stable_hash("key " + std::to_string(k));
    const auto walk = ring.walk(key);
    CHECK(std::set<size_t>(walk.begin(), walk.end()).size() == 3);
    CHECK(walk == same.walk(key));
    moved += walk[0] != other.walk(key)[0] ? 1 : 0;
  }
  CHECK(moved > 0);  // another seed is another ring
  // The hash is a fixed function (FNV-1a and a mix), not std::hash: the same on every platform.
  CHECK(stable_hash("") == stable_hash("", 0));
  CHECK(stable_hash("abc", 1) != stable_hash("abc", 2));
  // Listed in another order, the replicas own the same keys (points hash from the URLs).
  const ReplicaRing reordered({kUrls[2], kUrls[0], kUrls[1]}, {1, 1, 1}, 7);
  const std::vector<size_t> to_reordered = {1, 2, 0};
  for (int k = 0; k < 50; ++k) {
    const uint64_t key = stable_hash("key " + std::to_string(k));
    CHECK(to_reordered[ring.walk(key)[0]] == reordered.walk(key)[0]);
  }
}

TEST_CASE("replica ring: weights set the share of keys", "[agents]") {
  const auto even = owners(ReplicaRing(kUrls, {1, 1, 1}, 1), 6000);
  for (const auto& [replica, n] : even) CHECK((n > 1500 && n < 2500));
  const auto weighted = owners(ReplicaRing({kUrls[0], kUrls[1]}, {3, 1}, 1), 6000);
  CHECK(weighted.at(0) > 4000);  // about three quarters
  CHECK(weighted.at(0) < 5000);
}

TEST_CASE("routing: bounded load passes a request on along the ring", "[agents]") {
  const ReplicaRing ring(kUrls, {1, 1, 1}, 3);
  const uint64_t key = stable_hash("the shared system prompt");
  const auto walk = ring.walk(key);
  std::vector<ReplicaView> v(3);
  CHECK(choose_replica(Routing::PrefixAffinity, ring, v, key, 0) == walk[0]);
  // 6 in flight, 7 with this one: the owner may hold ceil(1.25 * 7 / 3) = 3.
  v[walk[0]].in_flight = 2;
  v[walk[1]].in_flight = 2;
  v[walk[2]].in_flight = 2;
  CHECK(choose_replica(Routing::PrefixAffinity, ring, v, key, 0) == walk[0]);
  v[walk[0]].in_flight = 3;
  v[walk[1]].in_flight = 2;
  v[walk[2]].in_flight = 1;
  CHECK(choose_replica(Routing::PrefixAffinity, ring, v, key, 0) == walk[1]);  // the next one clockwise
  v[walk[1]].in_flight = 3;
  v[walk[2]].in_flight = 0;
  CHECK(choose_replica(Routing::PrefixAffinity, ring, v, key, 0) == walk[2]);
  // A replica out of the fleet is skipped; none usable is no choice.
  v = std::vector<ReplicaView>(3);
  v[walk[0]].usable = false;
  CHECK(choose_replica(Routing::PrefixAffinity, ring, v, key, 0) == walk[1]);
  for (auto& r : v) r.usable = false;
  CHECK_FALSE(choose_replica(Routing::PrefixAffinity, ring, v, key, 0));
  CHECK_FALSE(choose_replica(Routing::RoundRobin, ring, v, key, 0));
  CHECK_FALSE(choose_replica(Routing::LeastLoaded, ring, v, key, 0));
}

TEST_CASE("routing: round robin cycles, least loaded takes the idlest per weight", "[agents]") {
  const ReplicaRing ring(kUrls, {1, 1, 1}, 0);
  std::vector<ReplicaView> v(3);
  CHECK(choose_replica(Routing::RoundRobin, ring, v, 0, 0) == 0u);
  CHECK(choose_replica(Routing::RoundRobin, ring, v, 0, 1) == 1u);
  CHECK(choose_replica(Routing::RoundRobin, ring, v, 0, 5) == 2u);
  v[1].usable = false;
  CHECK(choose_replica(Routing::RoundRobin, ring, v, 0, 1) == 2u);
  v = {{.in_flight = 4}, {.in_flight = 1}, {.in_flight = 2}};
  CHECK(choose_replica(Routing::LeastLoaded, ring, v, 0, 0) == 1u);
  v[2].weight = 4;  // 2 per 4 beats 1 per 1
  CHECK(choose_replica(Routing::LeastLoaded, ring, v, 0, 0) == 2u);
  v = std::vector<ReplicaView>(3);  // all idle: the turn spreads them
  CHECK(choose_replica(Routing::LeastLoaded, ring, v, 0, 0) == 0u);
  CHECK(choose_replica(Routing::LeastLoaded, ring, v, 0, 1) == 1u);
}
