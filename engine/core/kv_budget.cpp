// Sizing the KV block pool from a memory budget.
#include "engine/core/kv_budget.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

namespace engine {

size_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  size_t value = 0;
  std::string unit;
  while (meminfo >> key >> value >> unit)
    if (key == "MemAvailable:") return value * 1024;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
}

KvCacheShape kv_cache_shape(const ModelShape& model, const CacheConfig& cache) {
  KvCacheShape shape;
  shape.num_layers = model.num_layers;
  shape.num_kv_heads = model.num_kv_heads;
  shape.head_dim = model.head_dim;
  shape.block_size = cache.block_size;
  shape.dtype = cache.dtype;
  for (int32_t l = 0; l < model.num_layers; ++l) shape.sliding.push_back(model.window_of(l) > 0);
  return shape;
}

namespace {

int32_t ceil_div(int64_t a, int64_t b) {
  return static_cast<int32_t>((a + b - 1) / b);
}

// Prompt tokens one step takes at most.
int32_t max_prefill_per_step(const SchedulerConfig& s) {
  return s.max_prefill_tokens > 0 ? std::min(s.max_prefill_tokens, s.max_num_batched_tokens)
                                  : s.max_num_batched_tokens;
}

}  // namespace

bool window_blocks_apart(const ModelShape& model) {
  const int32_t sliding = model.num_sliding_layers();
  return sliding > 0 && sliding < model.num_layers &&
         (model.context_length == 0 || model.sliding_window < model.context_length);
}

int32_t window_blocks_per_sequence(const ModelShape& model, int32_t block_size) {
  return ceil_div(model.sliding_window - 1, block_size) + 2;
}

int32_t min_window_blocks(const ModelShape& model, const EngineConfig& config) {
  const int32_t bs = config.cache.block_size;
  return window_blocks_per_sequence(model, bs) + ceil_div(max_prefill_per_step(config.scheduler), bs) + 1;
}

std::expected<KvBlocks, Error> kv_cache_blocks_for(const ModelShape& model, const EngineConfig& config) {
  const CacheConfig& cache = config.cache;
  if (cache.block_size < 1)
    return std::unexpected(Error{fmt::format("KV block size {} must be >= 1", cache.block_size)});
  if (cache.dtype == KvDtype::Q8_0 && model.head_dim % 32 != 0)
    return std::unexpected(Error{
        fmt::format("KV dtype q8_0 needs a head dimension divisible by 32 (this model's is {}); use f16",
                    model.head_dim),
        ErrorKind::Unsupported});
  const KvCacheShape shape = kv_cache_shape(model, cache);
  const size_t block_bytes = shape.bytes_per_block();
  if (block_bytes == 0) return std::unexpected(Error{"the model shape has no KV cache (0 layers or heads)"});
  size_t budget = cache.kv_cache_bytes;
  if (budget == 0) {
    if (cache.kv_memory_fraction <= 0 || cache.kv_memory_fraction > 1)
      return std::unexpected(
          Error{fmt::format("kv_memory_fraction {} must be in (0, 1]", cache.kv_memory_fraction)});
    budget = static_cast<size_t>(static_cast<double>(available_memory_bytes()) * cache.kv_memory_fraction);
  }
  if (window_blocks_apart(model)) {
    // Every running sequence's window and one step's prompt chunk, twice over, and the zero block.
    const int64_t windows =
        int64_t{config.scheduler.max_num_seqs} * window_blocks_per_sequence(model, cache.block_size) +
        ceil_div(max_prefill_per_step(config.scheduler), cache.block_size);
    const size_t window_blocks = static_cast<size_t>(2 * windows + 1);
    const size_t global_bytes = shape.bytes_per_token(false) * cache.block_size;
    const size_t window_bytes = shape.bytes_per_token(true) * cache.block_size;
    if (window_blocks * window_bytes < budget && window_blocks < budget / block_bytes &&
        window_blocks < static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      const size_t blocks = std::min<size_t>((budget - window_blocks * window_bytes) / global_bytes,
                                             std::numeric_limits<int32_t>::max());
      return KvBlocks{static_cast<int32_t>(blocks), static_cast<int32_t>(window_blocks)};
    }
  }
  const size_t blocks = std::min<size_t>(budget / block_bytes, std::numeric_limits<int32_t>::max());
  if (blocks == 0)
    return std::unexpected(
        Error{fmt::format("KV budget of {} bytes holds no block of {} bytes ({} tokens of {} bytes); "
                          "raise kv_cache_bytes",
                          budget, block_bytes, cache.block_size, shape.bytes_per_token())});
  return KvBlocks{static_cast<int32_t>(blocks)};
}

}  // namespace engine
