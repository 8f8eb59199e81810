// Helpers every R8 kernel shares (matmul_r8_avx2.cpp, matmul_r8_avx512.cpp and the K-quant ones):
// loads, the group stream's software prefetch, activation rows, and the store of a group's 8 row
// results. Included only by files compiled with AVX2 or wider; everything here has internal
// linkage, so each file keeps the instructions of its own flags.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "kernels/cpu/matmul_r8.h"

namespace kernels::r8simd {
namespace {

inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

// Prefetches every cache line of the block `distance` bytes ahead of p in the group stream (one
// task's groups are one contiguous run, which the hardware prefetcher follows too).
template <int distance, typename Packed>
inline void prefetch_ahead(const Packed* p) {
  const char* at = reinterpret_cast<const char*>(p) + distance;
  for (size_t off = 0; off < sizeof(Packed); off += 64) _mm_prefetch(at + off, _MM_HINT_T0);
}

// Activation row j: Q8_0 blocks of the 32-value kernels, Q8_K super-blocks of the K-quant ones.
inline const BlockQ8_0* q8_0_row(const R8Rows& x, int64_t j) {
  return reinterpret_cast<const BlockQ8_0*>(x.q8 + static_cast<size_t>(j) * x.q8_stride);
}
inline const BlockQ8K* q8k_row(const DotRows& x, int64_t j) {
  return reinterpret_cast<const BlockQ8K*>(x.data + static_cast<size_t>(j) * x.stride);
}

// Writes the first num_w of a group's 8 row results.
inline void store_rows(__m256 rows, int num_w, float* out) {
  if (num_w == kR8) return _mm256_storeu_ps(out, rows);
  alignas(32) float lanes[kR8];
  _mm256_store_ps(lanes, rows);
  std::copy(lanes, lanes + num_w, out);
}

#if defined(__AVX512BW__)
// Four products of unsigned bytes u by signed bytes s summed into each int32 lane of acc:
// VNNI's vpdpbusd, else vpmaddubsw then vpmaddwd by 1, exact only while each pair of products
// fits int16 (the Q4_0 / Q5_0 codes, at most 31, and the Q4_K / Q6_K ones, at most 63, do).
inline __m512i dot_u8s8(__m512i acc, __m512i u, __m512i s) {
#if defined(__AVX512VNNI__)
  return _mm512_dpbusd_epi32(acc, u, s);
#else
  return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(u, s), _mm512_set1_epi16(1)));
#endif
}
#endif

}  // namespace
}  // namespace kernels::r8simd
