// Scalar dot products of one weight row with one activation row in the matching dot type
// (see dot_activation.h): the readable definition the SIMD kernels in kernels/cpu/ must match.
// Quantized pairs accumulate exact integer sums per block and scale them once per block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace kernels {

// Dot product of n values: a weight row `w` and an activation row `x` of dot_type(weight type).
using VecDotFn = float (*)(const std::byte* w, const std::byte* x, int64_t n);

// The scalar kernel for weights of `type`, or nullptr when the type is not supported.
VecDotFn scalar_vec_dot(GgmlType type);

float vec_dot_f32(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_f16(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_bf16(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_q8_0_q8_0(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_q5_0_q8_0(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_q4_0_q8_0(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_q4_k_q8_k(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_q5_k_q8_k(const std::byte* w, const std::byte* x, int64_t n);
float vec_dot_q6_k_q8_k(const std::byte* w, const std::byte* x, int64_t n);

}  // namespace kernels
