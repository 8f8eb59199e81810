// Run-time choice of the dot-product kernel for a weight type: AVX-512 (with VNNI) when this CPU
// has it, else AVX2, else the scalar definition in kernels/quant/vec_dot.h. The SIMD tables live
// in vec_dot_avx2.cpp / vec_dot_avx512.cpp, which are compiled with the matching -m flags.
#pragma once

#include "kernels/cpu/cpu_features.h"
#include "kernels/quant/vec_dot.h"

namespace kernels {

// The AVX2 kernel for weights of `type`, or nullptr (no kernel, or not built for x86).
VecDotFn avx2_vec_dot(GgmlType type);
// The AVX-512 (F, BW, VL, VNNI) kernel for weights of `type`, or nullptr.
VecDotFn avx512_vec_dot(GgmlType type);

// The widest SIMD level the dot kernels may use here (AVX-512 also needs VNNI).
SimdLevel vec_dot_level();

// The kernel for weights of `type` at `level` (falling back to narrower levels), or nullptr
// when the type is unsupported.
VecDotFn vec_dot_for(GgmlType type, SimdLevel level);

// The fastest kernel for `type` on this CPU.
inline VecDotFn best_vec_dot(GgmlType type) {
  return vec_dot_for(type, vec_dot_level());
}

}  // namespace kernels
