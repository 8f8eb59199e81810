// AVX2 + FMA + F16C dot-product kernels (filled in below).
#include "kernels/cpu/vec_dot_simd.h"

namespace kernels {

VecDotFn avx2_vec_dot(GgmlType) {
  return nullptr;
}

}  // namespace kernels
