// Paged KV cache storage with F32, F16 or Q8_0 rows; writes go through kernels::store_kv.
#include "engine/model/kv_cache.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/half.h"

namespace engine {

namespace {

constexpr int32_t kQ8Block = 32;                         // values per Q8_0 block
constexpr size_t kQ8BlockBytes = sizeof(uint16_t) + 32;  // f16 scale + 32 int8

// Bytes of `n` values of `dtype`.
size_t row_bytes(KvDtype dtype, int32_t n) {
  switch (dtype) {
    case KvDtype::F32:
      return 4 * static_cast<size_t>(n);
    case KvDtype::F16:
      return 2 * static_cast<size_t>(n);
    case KvDtype::Q8_0:
      return static_cast<size_t>(n / kQ8Block) * kQ8BlockBytes;
  }
  return 0;
}

// The kernels' element type of a cache of `dtype`.
kernels::GgmlType kv_type(KvDtype dtype) {
  switch (dtype) {
    case KvDtype::F32:
      return kernels::GgmlType::F32;
    case KvDtype::F16:
      return kernels::GgmlType::F16;
    case KvDtype::Q8_0:
      return kernels::GgmlType::Q8_0;
  }
  return kernels::GgmlType::F32;
}

}  // namespace

int32_t KvCacheShape::num_sliding_layers() const {
  return static_cast<int32_t>(std::ranges::count(sliding, true));
}

size_t KvCacheShape::bytes_per_token() const {
  return 2 * static_cast<size_t>(num_layers) * row_bytes(dtype, num_kv_heads * head_dim);
}

size_t KvCacheShape::bytes_per_token(bool sliding_layers) const {
  const int32_t layers = sliding_layers ? num_sliding_layers() : num_layers - num_sliding_layers();
  return 2 * static_cast<size_t>(layers) * row_bytes(dtype, num_kv_heads * head_dim);
}

PagedKvCache::PagedKvCache(const KvCacheShape& shape, int32_t num_blocks, int32_t window_blocks)
    : shape_(shape),
      num_blocks_(num_blocks),
      window_blocks_(window_blocks),
      token_bytes_(row_bytes(shape.dtype, shape.num_kv_heads * shape.head_dim)),
      k_(shape.num_layers),
      v_(shape.num_layers) {
  assert(shape.dtype != KvDtype::Q8_0 || shape.head_dim % kQ8Block == 0);
  for (int32_t l = 0; l < shape.num_layers; ++l) {
    const size_t layer_bytes = static_cast<size_t>(blocks_of(l)) * shape.block_size * token_bytes_;
    k_[l].resize(layer_bytes);
    v_[l].resize(layer_bytes);
  }
}

size_t PagedKvCache::offset([[maybe_unused]] int32_t layer, int32_t block, int32_t slot) const {
  assert(block >= 0 && block < blocks_of(layer) && slot >= 0 && slot < shape_.block_size);
  return (static_cast<size_t>(block) * shape_.block_size + slot) * token_bytes_;
}

void PagedKvCache::load(const std::vector<std::byte>& src, size_t at, std::span<float> dst) const {
  const std::byte* in = src.data() + at;
  switch (shape_.dtype) {
    case KvDtype::F32:
      std::memcpy(dst.data(), in, dst.size_bytes());
      return;
    case KvDtype::F16:
      for (size_t i = 0; i < dst.size(); ++i) {
        uint16_t h;
        std::memcpy(&h, in + 2 * i, 2);
        dst[i] = kernels::f16_to_f32(h);
      }
      return;
    case KvDtype::Q8_0:
      for (size_t b = 0; b < dst.size() / kQ8Block; ++b) {
        const std::byte* blk = in + b * kQ8BlockBytes;
        uint16_t dh;
        std::memcpy(&dh, blk, 2);
        const float d = kernels::f16_to_f32(dh);
        for (int i = 0; i < kQ8Block; ++i)
          dst[b * kQ8Block + i] = d * static_cast<float>(static_cast<int8_t>(blk[2 + i]));
      }
      return;
  }
}

void PagedKvCache::write(int32_t layer, int32_t block, int32_t slot, std::span<const float> k,
                         std::span<const float> v) {
  assert(k.size() == static_cast<size_t>(shape_.num_kv_heads * shape_.head_dim) && v.size() == k.size());
  assert(block >= 0 && block < blocks_of(layer) && slot >= 0 && slot < shape_.block_size);
  const int32_t slot_id = block * shape_.block_size + slot;
  kernels::store_kv(mutable_layer(layer), k, v, std::span(&slot_id, 1));
}

void PagedKvCache::read_k(int32_t layer, int32_t block, int32_t slot, std::span<float> out) const {
  load(k_[layer], offset(layer, block, slot), out);
}

void PagedKvCache::read_v(int32_t layer, int32_t block, int32_t slot, std::span<float> out) const {
  load(v_[layer], offset(layer, block, slot), out);
}

std::span<const std::byte> PagedKvCache::k_data(int32_t layer) const {
  return k_[layer];
}
std::span<const std::byte> PagedKvCache::v_data(int32_t layer) const {
  return v_[layer];
}

kernels::KvLayerView PagedKvCache::layer_view(int32_t layer) const {
  return {k_[layer].data(),  v_[layer].data(),    kv_type(shape_.dtype), blocks_of(layer),
          shape_.block_size, shape_.num_kv_heads, shape_.head_dim};
}

kernels::KvLayerMutView PagedKvCache::mutable_layer(int32_t layer) {
  return {k_[layer].data(),  v_[layer].data(),    kv_type(shape_.dtype), blocks_of(layer),
          shape_.block_size, shape_.num_kv_heads, shape_.head_dim};
}

}  // namespace engine
