// AVX-512 (F, BW, DQ, VNNI) matmul over R8-repacked Q4_K / Q6_K weights and Q8_K activation
// rows: the kernel of matmul_r8_k_avx512_tile.h on VNNI's vpdpbusd.
#include "kernels/cpu/matmul_r8.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VNNI__)

#include "kernels/cpu/matmul_r8_k_avx512_tile.h"

namespace kernels {

R8KMatmulFn avx512_r8k_matmul(GgmlType type) {
  return r8k_kernel(type);
}

}  // namespace kernels

#else

namespace kernels {

R8KMatmulFn avx512_r8k_matmul(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
