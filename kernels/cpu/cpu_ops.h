// The CPU implementations of the compute ops (kernels/cpu/*.cpp; readable reference loops in
// kernels/cpu/reference_ops.h, SIMD paths chosen at run time behind these entry points), as free
// functions over host views and a thread pool. The model reaches them through the CPU backend
// (kernels/cpu/cpu_backend.h, behind the Backend interface of kernels/ops.h); tests and the
// kernel benchmarks call them directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/tensor.h"

namespace kernels {

class ThreadPool;

// y[n, w.rows] = x[n, w.cols] · wᵀ: every activation row against every weight row. Activations
// are first converted to the weight type's dot type (see kernels/quant/dot_activation.h), as
// llama.cpp does; each weight row is read once for all n activation rows. Parallel over weight
// rows on `pool`.
void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y, ThreadPool& pool);

// Bytes of a copy of w in a layout this CPU's matmul streams faster (for Q8_0 / Q4_0 / Q5_0 /
// Q4_K / Q6_K at the AVX2 and AVX-512 levels: rows interleaved in groups of 8), or 0 when w is
// best used as it is (the scalar level, other types).
size_t repacked_bytes(const MatrixView& w);

// Turns the repacked layout off (or on again) for the whole process: repacked_bytes() then says
// 0 for every matrix, so weights keep their file layout. On by default.
void set_repack_layout(bool enabled);

// Writes that copy of w into dst (repacked_bytes(w) bytes, which must be > 0) and returns its
// view. matmul's results on it equal those on w up to float rounding (and are batch-invariant
// on either); other ops (embedding, the reference loops) need the original.
MatrixView repack_for_matmul(const MatrixView& w, std::byte* dst);

// matmul for up to 4 weights with the same input x[n, cols] (e.g. q, k, v): one conversion of x
// per dot type and one hand-off to the pool for all of them; each y as matmul would write it.
void matmul_group(std::span<const MatmulTarget> targets, std::span<const float> x, int64_t n,
                  ThreadPool& pool);

// out[n, dim] = x / sqrt(mean(x²) + eps) * weight, per row of `dim` values (out may alias x).
void rmsnorm(std::span<const float> x, std::span<const float> weight, int64_t dim, float eps,
             std::span<float> out);

// Rotates x[n, num_heads, head_dim] in place, row r at position positions[r].
void rope(std::span<float> x, std::span<const int32_t> positions, int32_t num_heads, int32_t head_dim,
          const RopeParams& params);

// Causal attention of one sequence's query rows over its paged K/V. q: [num_rows, num_heads,
// head_dim]; row r sits at positions[r] and attends to positions kv.first_visible(positions[r])
// ..positions[r] (0.. unless the layer has a sliding window), found through
// block_table (position p is block block_table[p / block_size], slot p % block_size). Query head h
// uses KV head h / (num_heads / num_kv_heads) (GQA/MQA). out: [num_rows, num_heads, head_dim].
// K/V are read in place through the block table (online softmax, one read of each K/V row for
// all query heads of its group).
void paged_attention(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                     const KvLayerView& kv, std::span<const int32_t> block_table, AttentionScores scores,
                     std::span<float> out, ThreadPool& pool);

// paged_attention for every sequence of a step in one hand-off to the pool (tasks of sequence,
// KV head and run of query rows). q, out: [total rows, num_heads, head_dim]. Each row's result
// is bit for bit what paged_attention gives for its sequence alone: it never depends on the
// other rows or sequences of the call, nor on the number of threads.
void paged_attention_batch(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                           const KvLayerView& kv, std::span<const AttentionSeq> seqs, AttentionScores scores,
                           std::span<float> out, ThreadPool& pool);

// Writes n tokens' K and V (k, v: [n, num_kv_heads * head_dim] F32) into a cache layer, token i
// at slot slots[i] = block * block_size + offset in the block, converted to the layer's type
// (F16 and Q8_0 as quantize_row writes them; Q8_0 needs head_dim a multiple of 32).
void store_kv(const KvLayerMutView& kv, std::span<const float> k, std::span<const float> v,
              std::span<const int32_t> slots);

// out = silu(gate) * up, elementwise (silu(x) = x / (1 + e^-x)).
void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out);

// out = gelu(gate) * up, elementwise, with GELU's tanh form 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x³)))
// taken at F16 precision as ggml's CPU does (its table: the input and the result rounded to F16;
// 0 below -10, x above 10), so that Gemma's answers match llama.cpp's.
void geglu(std::span<const float> gate, std::span<const float> up, std::span<float> out);

// x *= factor, elementwise.
void scale(std::span<float> x, float factor);

// out = a + b, elementwise (out may alias a or b).
void add(std::span<const float> a, std::span<const float> b, std::span<float> out);

// x[n, dim] += bias[dim] for every row.
void add_bias(std::span<float> x, std::span<const float> bias);

// In-place softmax over x (max-subtracted, F32).
void softmax(std::span<float> x);

// out[n, table.cols] = the dequantized rows ids[i] of `table` (ids must be in [0, table.rows)).
void embedding(const MatrixView& table, std::span<const int32_t> ids, std::span<float> out);

// Mixture-of-experts routing, per row of logits[n, num_experts], as llama.cpp computes it: p =
// softmax(row) (kernels::softmax); ids[r, 0..k) = the k experts of highest p, highest first (ties:
// the lower expert first); weights[r, 0..k) = their p, divided by the sum of those k (summed in
// double, in that order) where `normalize`.
void select_experts(std::span<const float> logits, int32_t num_experts, int32_t k, bool normalize,
                    std::span<int32_t> ids, std::span<float> weights);

// out[r, cols] = Σ_s weights[r*k + s] · src[slots[r*k + s], cols], each product rounded to F32 and
// the k of them added in slot order (s = 0 first), as llama.cpp sums a row's experts.
void combine_experts(std::span<const float> src, std::span<const int32_t> slots,
                     std::span<const float> weights, int32_t k, int64_t cols, std::span<float> out);

// out[r, :] += sigmoid(gate[r]) · x[r, :], x and out [n, cols], gate [n].
void add_sigmoid_gated(std::span<const float> x, std::span<const float> gate, std::span<float> out);

}  // namespace kernels
