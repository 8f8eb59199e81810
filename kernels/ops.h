// Backend-neutral declarations of the compute ops the transformer is made of, over simple views:
// weight matrices in ggml layout (any supported type), F32 activations as row-major spans, and
// one layer of a paged KV cache. The CPU implementations live in kernels/cpu/ (readable reference
// loops in kernels/cpu/reference_ops.h, SIMD paths chosen at run time behind these entry points).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/quant/ggml_type.h"

namespace kernels {

class ThreadPool;

// A 2-D matrix in ggml layout: `rows` rows of `cols` elements of `type`, row r starting at
// data + r * row_stride bytes (row_stride = row_bytes(type, cols) for a packed tensor). A view
// made by repack_for_matmul has interleave 8: groups of 8 rows interleaved block by block
// (kernels/cpu/matmul_r8.h), row_stride the bytes of one group; only matmul reads it.
struct MatrixView {
  const std::byte* data = nullptr;
  GgmlType type = GgmlType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t row_stride = 0;
  int32_t interleave = 0;  // 0: ggml rows; 8: repacked

  // Bytes of row r (ggml layout only).
  const std::byte* row(int64_t r) const { return data + static_cast<size_t>(r) * row_stride; }
};

// A packed [rows, cols] matrix of `type` at `data`.
MatrixView matrix_view(const void* data, GgmlType type, int64_t rows, int64_t cols);

// One layer of a paged KV cache: K and V each [num_blocks, block_size, num_kv_heads, head_dim]
// of `type` (F32, F16 or Q8_0; Q8_0 quantizes each head's row in blocks of 32).
struct KvLayerView {
  const std::byte* k = nullptr;
  const std::byte* v = nullptr;
  GgmlType type = GgmlType::F32;
  int32_t num_blocks = 0;
  int32_t block_size = 0;
  int32_t num_kv_heads = 0;
  int32_t head_dim = 0;

  // Bytes of one token's K (or V): num_kv_heads * head_dim values of `type`.
  size_t token_bytes() const { return row_bytes(type, static_cast<int64_t>(num_kv_heads) * head_dim); }
};

// The same layer open for writing (store_kv).
struct KvLayerMutView {
  std::byte* k = nullptr;
  std::byte* v = nullptr;
  GgmlType type = GgmlType::F32;
  int32_t num_blocks = 0;
  int32_t block_size = 0;
  int32_t num_kv_heads = 0;
  int32_t head_dim = 0;

  // The layer, read-only.
  KvLayerView view() const { return {k, v, type, num_blocks, block_size, num_kv_heads, head_dim}; }
};

// y[n, w.rows] = x[n, w.cols] · wᵀ: every activation row against every weight row. Activations
// are first converted to the weight type's dot type (see kernels/quant/dot_activation.h), as
// llama.cpp does; each weight row is read once for all n activation rows. Parallel over weight
// rows on `pool`.
void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y, ThreadPool& pool);

// Bytes of a copy of w in a layout this CPU's matmul streams faster (for Q8_0 / Q4_0 / Q5_0 /
// Q4_K / Q6_K at the AVX2 and AVX-512 levels: rows interleaved in groups of 8), or 0 when w is
// best used as it is (the scalar level, other types).
size_t repacked_bytes(const MatrixView& w);

// Writes that copy of w into dst (repacked_bytes(w) bytes, which must be > 0) and returns its
// view. matmul's results on it equal those on w up to float rounding (and are batch-invariant
// on either); other ops (embedding, the reference loops) need the original.
MatrixView repack_for_matmul(const MatrixView& w, std::byte* dst);

// One weight of a grouped matmul and where its product goes: y[n, w.rows].
struct MatmulTarget {
  MatrixView w;
  std::span<float> y;
};

// matmul for up to 4 weights with the same input x[n, cols] (e.g. q, k, v): one conversion of x
// per dot type and one hand-off to the pool for all of them; each y as matmul would write it.
void matmul_group(std::span<const MatmulTarget> targets, std::span<const float> x, int64_t n,
                  ThreadPool& pool);

// out[n, dim] = x / sqrt(mean(x²) + eps) * weight, per row of `dim` values (out may alias x).
void rmsnorm(std::span<const float> x, std::span<const float> weight, int64_t dim, float eps,
             std::span<float> out);

// How rotary embedding pairs the dimensions of a head.
enum class RopeStyle {
  Normal,  // pairs (2i, 2i+1): llama
  Neox,    // pairs (i, i + rot_dim/2): qwen2, qwen3
};

struct RopeParams {
  RopeStyle style = RopeStyle::Normal;
  int32_t rot_dim = 0;                  // rotated dimensions per head (≤ head_dim; the rest pass through)
  float freq_base = 10000.0f;           // theta_i = pos * freq_scale * base^(-2i/rot_dim) / factor_i
  float freq_scale = 1.0f;              // linear rope scaling: 1 / factor
  const float* freq_factors = nullptr;  // optional [rot_dim / 2] divisors (Llama 3.1 rope_freqs)
};

// Rotates x[n, num_heads, head_dim] in place, row r at position positions[r].
void rope(std::span<float> x, std::span<const int32_t> positions, int32_t num_heads, int32_t head_dim,
          const RopeParams& params);

// Causal attention of one sequence's query rows over its paged K/V. q: [num_rows, num_heads,
// head_dim]; row r sits at positions[r] and attends to positions 0..positions[r], found through
// block_table (position p is block block_table[p / block_size], slot p % block_size). Query head h
// uses KV head h / (num_heads / num_kv_heads) (GQA/MQA). out: [num_rows, num_heads, head_dim].
// K/V are read in place through the block table (online softmax, one read of each K/V row for
// all query heads of its group).
void paged_attention(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                     const KvLayerView& kv, std::span<const int32_t> block_table, float scale,
                     std::span<float> out, ThreadPool& pool);

// One sequence of a batched attention call: rows [first_row, first_row + num_rows) of q,
// positions and out belong to it, and its positions are found through block_table.
struct AttentionSeq {
  std::span<const int32_t> block_table;
  int32_t first_row = 0;
  int32_t num_rows = 0;
};

// paged_attention for every sequence of a step in one hand-off to the pool (tasks of sequence,
// KV head and run of query rows). q, out: [total rows, num_heads, head_dim]. Each row's result
// is bit for bit what paged_attention gives for its sequence alone: it never depends on the
// other rows or sequences of the call, nor on the number of threads.
void paged_attention_batch(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                           const KvLayerView& kv, std::span<const AttentionSeq> seqs, float scale,
                           std::span<float> out, ThreadPool& pool);

// Writes n tokens' K and V (k, v: [n, num_kv_heads * head_dim] F32) into a cache layer, token i
// at slot slots[i] = block * block_size + offset in the block, converted to the layer's type
// (F16 and Q8_0 as quantize_row writes them; Q8_0 needs head_dim a multiple of 32).
void store_kv(const KvLayerMutView& kv, std::span<const float> k, std::span<const float> v,
              std::span<const int32_t> slots);

// out = silu(gate) * up, elementwise (silu(x) = x / (1 + e^-x)).
void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out);

// out = a + b, elementwise (out may alias a or b).
void add(std::span<const float> a, std::span<const float> b, std::span<float> out);

// x[n, dim] += bias[dim] for every row.
void add_bias(std::span<float> x, std::span<const float> bias);

// In-place softmax over x (max-subtracted, F32).
void softmax(std::span<float> x);

// out[n, table.cols] = the dequantized rows ids[i] of `table` (ids must be in [0, table.rows)).
void embedding(const MatrixView& table, std::span<const int32_t> ids, std::span<float> out);

}  // namespace kernels
