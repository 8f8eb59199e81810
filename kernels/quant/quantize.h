// F32 -> ggml tensor rows: F16, BF16, Q8_0, Q5_0, Q4_K and Q6_K, byte for byte as ggml's reference
// quantizers (quantize_row_*_ref in ggml-quants.c) write them, so the files we write are the files
// llama.cpp's quantizer would write from the same floats. Inputs must be finite.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace kernels {

// True when quantize_row can produce `type`.
bool can_quantize(GgmlType type);

// Encodes `n` floats as `type` into `dst` (row_bytes(type, n) bytes); n must be a multiple of the
// type's block size and the type one that can_quantize accepts (asserted).
void quantize_row(GgmlType type, const float* src, std::byte* dst, int64_t n);

// One encoder per type (n a multiple of the block size).
void quantize_row_f16(const float* src, std::byte* dst, int64_t n);
void quantize_row_bf16(const float* src, std::byte* dst, int64_t n);
void quantize_row_q8_0(const float* src, std::byte* dst, int64_t n);
void quantize_row_q5_0(const float* src, std::byte* dst, int64_t n);
void quantize_row_q4_k(const float* src, std::byte* dst, int64_t n);
void quantize_row_q6_k(const float* src, std::byte* dst, int64_t n);

}  // namespace kernels
