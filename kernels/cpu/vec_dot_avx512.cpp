// AVX-512 dot-product kernels (filled in below).
#include "kernels/cpu/vec_dot_simd.h"

namespace kernels {

VecDotFn avx512_vec_dot(GgmlType) {
  return nullptr;
}

}  // namespace kernels
