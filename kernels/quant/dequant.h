// Dequantization of ggml tensor rows to F32, exactly per ggml's block layouts
// (dequantize_row_* in ggml-quants.c): F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K and Q8_K.
// (Q8_K is an activation type only: it decodes here but is no weight type.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace kernels {

// True when the matmul kernels (and dequantize_row) handle weights of `type`.
bool is_supported_weight_type(GgmlType type);

// Decodes `n` values of `type` at `src` into `dst`; n must be a multiple of the type's block size
// and the type one of those above (asserted).
void dequantize_row(GgmlType type, const std::byte* src, float* dst, int64_t n);

// One decoder per type (n a multiple of the block size).
void dequantize_row_f16(const std::byte* src, float* dst, int64_t n);
void dequantize_row_bf16(const std::byte* src, float* dst, int64_t n);
void dequantize_row_q8_0(const std::byte* src, float* dst, int64_t n);
void dequantize_row_q4_0(const std::byte* src, float* dst, int64_t n);
void dequantize_row_q5_0(const std::byte* src, float* dst, int64_t n);
void dequantize_row_q4_k(const std::byte* src, float* dst, int64_t n);
void dequantize_row_q5_k(const std::byte* src, float* dst, int64_t n);
void dequantize_row_q6_k(const std::byte* src, float* dst, int64_t n);
void dequantize_row_q8_k(const std::byte* src, float* dst, int64_t n);

}  // namespace kernels
