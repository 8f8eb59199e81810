// Reference versions of the ops that have fast CPU paths: the plainest loops that define what the
// fast versions compute, in double precision, single-threaded. Tests compare against these.
#pragma once

#include <span>

#include "kernels/cpu/cpu_ops.h"

namespace kernels::reference {

// y[n, w.rows] = x[n, w.cols] · wᵀ with the activations converted to the weight's dot type and
// back (so the result is what the quantized kernels compute, up to summation order).
void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y);

// Paged attention as in kernels::paged_attention, reading every K/V row through dequantize_row.
void paged_attention(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                     const KvLayerView& kv, std::span<const int32_t> block_table, AttentionScores scores,
                     std::span<float> out);

}  // namespace kernels::reference
