// AVX-512 (F, BW, DQ, VNNI) matmul over R8-repacked Q8_0 / Q4_0 / Q5_0 weights: the kernel of
// matmul_r8_avx512_tile.h on VNNI's vpdpbusd.
#include "kernels/cpu/matmul_r8.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VNNI__)

#include "kernels/cpu/matmul_r8_avx512_tile.h"

namespace kernels {

R8MatmulFn avx512_r8_matmul(GgmlType type) {
  return r8_kernel(type);
}

}  // namespace kernels

#else

namespace kernels {

R8MatmulFn avx512_r8_matmul(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
