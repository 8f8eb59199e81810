// Run-time choice of the dot-product kernel for a weight type: AVX-512 (with VNNI; BF16 with
// AVX512_BF16 where present) when this CPU has it, else AVX2, else the scalar definition in
// kernels/quant/vec_dot.h. The SIMD tables live in vec_dot_avx2.cpp / vec_dot_avx512.cpp, which are compiled
// with the matching -m flags.
#pragma once

#include "kernels/cpu/cpu_features.h"
#include "kernels/quant/vec_dot.h"

namespace kernels {

// Activation rows for the multi-row kernels: rows of dot-type blocks, plus (Q8_0 only; else
// nullptr) every block's scale already converted to float (block k of row i:
// scales[i * scales_stride + k]).
struct DotRows {
  const std::byte* data = nullptr;
  size_t stride = 0;  // bytes from one row to the next
  const float* scales = nullptr;
  int64_t scales_stride = 0;
};

// One weight row against `num_x` (1..kMaxDotRows) activation rows: out[i * out_stride] =
// dot(w, row i). Shares the weight's loads and decoding across the rows, and computes exactly
// what the single-row kernel computes for each row.
using VecDotRowsFn = void (*)(const std::byte* w, const DotRows& x, int num_x, int64_t n, float* out,
                              int64_t out_stride);
inline constexpr int kMaxDotRows = 4;

// The AVX2 kernel for weights of `type`, or nullptr (no kernel, or not built for x86).
VecDotFn avx2_vec_dot(GgmlType type);
// The AVX-512 (F, BW, VL, VNNI) kernel for weights of `type`, or nullptr.
VecDotFn avx512_vec_dot(GgmlType type);

// Multi-row kernels, where one exists for `type` (nullptr otherwise).
VecDotRowsFn avx2_vec_dot_rows(GgmlType type);
VecDotRowsFn avx512_vec_dot_rows(GgmlType type);

// The AVX512_BF16 kernels (dpbf16ps; BF16 weights only, else nullptr). The AVX-512 level takes
// them where the CPU has the extension.
VecDotFn avx512bf16_vec_dot(GgmlType type);
VecDotRowsFn avx512bf16_vec_dot_rows(GgmlType type);
// Whether this CPU has AVX512_BF16.
bool cpu_has_avx512_bf16();
// Whether this CPU has AVX512_VNNI.
bool cpu_has_avx512_vnni();

// Converts n floats to Q8_0 activation blocks, exactly as quantize_activation_row does.
using QuantizeRowFn = void (*)(const float* x, std::byte* dst, int64_t n);
// The AVX2 Q8_0 activation quantizer, or nullptr.
QuantizeRowFn avx2_quantize_row_q8_0();

// The widest SIMD level the dot kernels may use at `level` on this CPU (AVX-512 also needs VNNI).
SimdLevel vec_dot_level_for(SimdLevel level);
// The level the matmul and dot kernels of this process use: vec_dot_level_for(simd_level()).
SimdLevel vec_dot_level();
// The widest dot-kernel level this CPU can run, whatever ARENA_SIMD says (for tests that call a
// level's kernels directly).
SimdLevel cpu_vec_dot_level();

// The kernel for weights of `type` at `level` (falling back to narrower levels), or nullptr
// when the type is unsupported.
VecDotFn vec_dot_for(GgmlType type, SimdLevel level);

// The fastest kernel for `type` on this CPU.
inline VecDotFn best_vec_dot(GgmlType type) {
  return vec_dot_for(type, vec_dot_level());
}

// The activation conversion for dot type `type` at `level` (SIMD for Q8_0 where available, else
// the scalar quantize_activation_row).
void convert_activation_row(GgmlType type, SimdLevel level, const float* x, std::byte* dst, int64_t n);

// The multi-row kernel for `type` at `level`, or nullptr (then use the single-row kernel).
VecDotRowsFn vec_dot_rows_for(GgmlType type, SimdLevel level);

}  // namespace kernels
