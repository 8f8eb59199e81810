// The ring and the routing policies of replica_ring.h.
#include "agents/backend/replica_ring.h"

#include <algorithm>
#include <cmath>

namespace agents::backend {

uint64_t stable_hash(std::string_view text, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull ^ (seed * 0x9e3779b97f4a7c15ull);
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

ReplicaRing::ReplicaRing(const std::vector<std::string>& urls, const std::vector<int32_t>& weights,
                         uint64_t seed)
    : num_replicas_(urls.size()) {
  for (size_t i = 0; i < urls.size(); ++i) {
    // Points hash from the URL, not the index: listing the replicas in another order, or adding
    // one, moves only the keys the new points take over.
    const int32_t points = kPointsPerWeight * std::max(1, i < weights.size() ? weights[i] : 1);
    for (int32_t k = 0; k < points; ++k)
      points_.push_back({stable_hash(urls[i] + "#" + std::to_string(k), seed), i});
  }
  std::sort(points_.begin(), points_.end(), [](const Point& a, const Point& b) {
    return a.at != b.at ? a.at < b.at : a.replica < b.replica;
  });
}

std::vector<size_t> ReplicaRing::walk(uint64_t key) const {
  std::vector<size_t> order;
  if (points_.empty()) return order;
  std::vector<bool> seen(num_replicas_, false);
  auto it = std::lower_bound(points_.begin(), points_.end(), key,
                             [](const Point& p, uint64_t k) { return p.at < k; });
  const size_t start = static_cast<size_t>(it - points_.begin());
  for (size_t n = 0; n < points_.size() && order.size() < num_replicas_; ++n) {
    const size_t r = points_[(start + n) % points_.size()].replica;
    if (!seen[r]) {
      seen[r] = true;
      order.push_back(r);
    }
  }
  return order;
}

namespace {

std::optional<size_t> bounded_load_choice(const ReplicaRing& ring, const std::vector<ReplicaView>& replicas,
                                          uint64_t key) {
  int64_t total = 1;  // this request
  int64_t weights = 0;
  for (const auto& r : replicas)
    if (r.usable) {
      total += r.in_flight;
      weights += std::max(1, r.weight);
    }
  if (weights == 0) return std::nullopt;
  std::optional<size_t> first_usable;
  for (const size_t i : ring.walk(key)) {
    const ReplicaView& r = replicas[i];
    if (!r.usable) continue;
    if (!first_usable) first_usable = i;
    const double share = double(total) * std::max(1, r.weight) / double(weights);
    const auto capacity = static_cast<int64_t>(std::ceil(kBoundedLoadFactor * share));
    if (r.in_flight + 1 <= capacity) return i;
  }
  return first_usable;  // the capacities sum past the total, so only reached through rounding
}

}  // namespace

std::optional<size_t> choose_replica(Routing routing, const ReplicaRing& ring,
                                     const std::vector<ReplicaView>& replicas, uint64_t key, uint64_t turn) {
  const size_t n = replicas.size();
  if (n == 0) return std::nullopt;
  switch (routing) {
    case Routing::PrefixAffinity:
      return bounded_load_choice(ring, replicas, key);
    case Routing::RoundRobin:
      for (size_t k = 0; k < n; ++k)
        if (const size_t i = (turn + k) % n; replicas[i].usable) return i;
      return std::nullopt;
    case Routing::LeastLoaded: {
      // The fewest in flight per unit of weight; ties go round robin so that an idle fleet spreads.
      std::optional<size_t> best;
      for (size_t k = 0; k < n; ++k) {
        const size_t i = (turn + k) % n;
        if (!replicas[i].usable) continue;
        const auto load = [&](size_t j) {
          return double(replicas[j].in_flight) / std::max(1, replicas[j].weight);
        };
        if (!best || load(i) < load(*best)) best = i;
      }
      return best;
    }
  }
  return std::nullopt;
}

}  // namespace agents::backend
