// Strong id types of the serving core: a sequence (one per request) and a KV block. Distinct
// types so a block id can never be passed where a sequence id is expected, and vice versa.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace engine {

// One request's sequence; ids are assigned by the engine in submission order, starting at 1.
struct SeqId {
  uint64_t value = 0;
  auto operator<=>(const SeqId&) const = default;
};

// The id the public API hands out for a submitted request (its sequence's id).
using RequestId = SeqId;

// One KV cache block, an index into the PagedKvCache's block array.
struct BlockId {
  int32_t value = -1;
  auto operator<=>(const BlockId&) const = default;
};

}  // namespace engine

template <>
struct std::hash<engine::SeqId> {
  size_t operator()(engine::SeqId id) const noexcept { return std::hash<uint64_t>{}(id.value); }
};
template <>
struct std::hash<engine::BlockId> {
  size_t operator()(engine::BlockId id) const noexcept { return std::hash<int32_t>{}(id.value); }
};
