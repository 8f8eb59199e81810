// How many KV blocks the engine gets: the configured byte budget (or a fraction of the
// machine's available memory) divided by the bytes of one block for this model and dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>

#include "engine/core/engine_config.h"
#include "engine/error.h"
#include "engine/model/language_model.h"

namespace engine {

// Bytes of memory available to new allocations (MemAvailable from /proc/meminfo, else free
// physical pages); 0 when unknown.
size_t available_memory_bytes();

// The KV cache shape of `model` under `cache`.
KvCacheShape kv_cache_shape(const ModelShape& model, const CacheConfig& cache);

// Blocks that fit in the budget, or an error naming the budget and one block's size when not
// even one block fits or the shape cannot use the dtype.
std::expected<int32_t, Error> kv_cache_blocks_for(const ModelShape& model, const CacheConfig& cache);

}  // namespace engine
