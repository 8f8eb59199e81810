// How many KV blocks the engine gets: the configured byte budget (or a fraction of the
// machine's available memory) divided by the bytes of one block for this model and dtype. A
// model whose sliding-window layers are interleaved with global ones gives the sliding layers
// blocks of their own where that holds more tokens: as many as every running sequence's window
// and a step's prompt chunk need, twice over (the second half keeps released windows cached for
// prefix hits); the global layers get the rest of the budget.
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

// The KV cache's blocks.
struct KvBlocks {
  KvBlocks(int32_t blocks_, int32_t window_blocks_ = 0) : blocks(blocks_), window_blocks(window_blocks_) {}
  // Blocks of every layer, or of the global layers where the sliding ones have their own.
  int32_t blocks = 0;
  // The sliding layers' own blocks, the last a block of zeros that no row writes (0: none).
  int32_t window_blocks = 0;
};

// Whether the sliding-window layers of `model` get blocks of their own: it has global layers too,
// and a window shorter than its context.
bool window_blocks_apart(const ModelShape& model);
// The window blocks a running sequence holds at most between steps: from the block its window
// starts in to the one it writes next.
int32_t window_blocks_per_sequence(const ModelShape& model, int32_t block_size);

// The fewest window blocks (the zero block included) with which a sequence can always run alone:
// its window and the largest prompt chunk of a step.
int32_t min_window_blocks(const ModelShape& model, const EngineConfig& config);

// Blocks that fit in the budget, or an error naming the budget and one block's size when not
// even one block fits or the shape cannot use the dtype.
std::expected<KvBlocks, Error> kv_cache_blocks_for(const ModelShape& model, const EngineConfig& config);

}  // namespace engine
