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
  return shape;
}

std::expected<int32_t, Error> kv_cache_blocks_for(const ModelShape& model, const CacheConfig& cache) {
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
  const size_t blocks = std::min<size_t>(budget / block_bytes, std::numeric_limits<int32_t>::max());
  if (blocks == 0)
    return std::unexpected(
        Error{fmt::format("KV budget of {} bytes holds no block of {} bytes ({} tokens of {} bytes); "
                          "raise kv_cache_bytes",
                          budget, block_bytes, cache.block_size, shape.bytes_per_token())});
  return static_cast<int32_t>(blocks);
}

}  // namespace engine
