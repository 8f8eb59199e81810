// Paged KV cache storage: a pool of fixed-size blocks per layer, addressed by block id. Which
// sequence owns which block is the KvCacheManager's business (engine II); this class only
// stores and returns rows.
//
// Layout per layer and per K/V: [num_blocks, block_size, num_kv_heads, head_dim] of `dtype`
// (Q8_0 rows are quantized per head: head_dim must be a multiple of 32). A model whose sliding-
// window layers are interleaved with global ones (Gemma 2 and 3) may give its sliding layers a
// storage of their own with fewer blocks (window_blocks): a sequence keeps there only the blocks
// its window covers, through a block table of its own (BatchSeq::window_table).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/kv_block_size.h"
#include "engine/core/kv_dtype.h"
#include "kernels/tensor.h"

namespace engine {

struct KvCacheShape {
  int32_t num_layers = 0;
  int32_t num_kv_heads = 0;
  int32_t head_dim = 0;
  int32_t block_size = kDefaultKvBlockSize;
  KvDtype dtype = KvDtype::F16;
  std::vector<bool> sliding;  // [layer]: whether the layer slides a window (empty: none does)

  bool slides(int32_t layer) const { return !sliding.empty() && sliding[static_cast<size_t>(layer)]; }
  int32_t num_sliding_layers() const;
  // Bytes of one token's K and V across all layers (2 x layers x kv_heads x head_dim x bytes).
  size_t bytes_per_token() const;
  // The same across the sliding layers only, or across the others only.
  size_t bytes_per_token(bool sliding_layers) const;
  // Bytes of one block across all layers.
  size_t bytes_per_block() const { return bytes_per_token() * static_cast<size_t>(block_size); }
};

class PagedKvCache {
 public:
  // `num_blocks` blocks per layer; with window_blocks > 0, the sliding layers get that many instead,
  // in a storage addressed by window block ids.
  PagedKvCache(const KvCacheShape& shape, int32_t num_blocks, int32_t window_blocks = 0);

  const KvCacheShape& shape() const { return shape_; }
  int32_t num_blocks() const { return num_blocks_; }
  // Blocks of the sliding layers' own storage (0: they share the block ids of the others).
  int32_t window_blocks() const { return window_blocks_; }
  // Whether `layer` is addressed by window block ids.
  bool windowed(int32_t layer) const { return window_blocks_ > 0 && shape_.slides(layer); }
  // Blocks of `layer`.
  int32_t blocks_of(int32_t layer) const { return windowed(layer) ? window_blocks_ : num_blocks_; }

  // Stores one token's K and V ([num_kv_heads * head_dim] floats each) at (layer, block, slot),
  // through kernels::store_kv as the forward pass writes them.
  void write(int32_t layer, int32_t block, int32_t slot, std::span<const float> k, std::span<const float> v);
  // Reads one token's K or V back as floats into `out` ([num_kv_heads * head_dim]).
  void read_k(int32_t layer, int32_t block, int32_t slot, std::span<float> out) const;
  void read_v(int32_t layer, int32_t block, int32_t slot, std::span<float> out) const;

  // Raw storage of one layer's K or V: [num_blocks, block_size, num_kv_heads, row_bytes] for kernels.
  std::span<const std::byte> k_data(int32_t layer) const;
  std::span<const std::byte> v_data(int32_t layer) const;
  // Layer `layer` as the attention kernel reads it, and open for writing (kernels::store_kv).
  kernels::KvLayerView layer_view(int32_t layer) const;
  kernels::KvLayerMutView mutable_layer(int32_t layer);

 private:
  size_t offset(int32_t layer, int32_t block, int32_t slot) const;
  void load(const std::vector<std::byte>& src, size_t at, std::span<float> dst) const;

  KvCacheShape shape_;
  int32_t num_blocks_;
  int32_t window_blocks_;
  size_t token_bytes_;                     // bytes of one token's K (or V) in one layer
  std::vector<std::vector<std::byte>> k_;  // [layer] -> [num_blocks * block_size * token_bytes_]
  std::vector<std::vector<std::byte>> v_;
};

}  // namespace engine
