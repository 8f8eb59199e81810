// AVX2 helpers the Q4_K / Q6_K R8 kernels share (matmul_r8_k_avx2.cpp, matmul_r8_k_avx512.cpp):
// code decoding and the per-super-block integer sums both kernels compute the same way (with the
// helpers of every R8 kernel, matmul_r8_simd.h). Included only by files compiled with AVX2 or
// wider; everything here has internal linkage, so each file keeps the instructions of its flags.
#pragma once

#include <immintrin.h>

#include "kernels/cpu/matmul_r8.h"
#include "kernels/cpu/matmul_r8_simd.h"

namespace kernels::r8k {
namespace {

using namespace r8simd;

// Lane i (two int16) = (a[i], b[i]).
inline __m256i pairs_u8(const uint8_t* a, const uint8_t* b) {
  const __m128i va = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a)));
  const __m128i vb = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b)));
  return _mm256_set_m128i(_mm_unpackhi_epi16(va, vb), _mm_unpacklo_epi16(va, vb));
}
inline __m256i pairs_i8(const int8_t* a, const int8_t* b) {
  const __m128i va = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a)));
  const __m128i vb = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b)));
  return _mm256_set_m128i(_mm_unpackhi_epi16(va, vb), _mm_unpacklo_epi16(va, vb));
}

// (a, b) as the two int16 of every 32-bit lane.
inline __m256i both_lanes(int a, int b) {
  return _mm256_set1_epi32(
      static_cast<int>(static_cast<uint16_t>(a) | static_cast<uint32_t>(static_cast<uint16_t>(b)) << 16));
}

// Q4_K: lane i = sum_j min_j[i] * (x's sum over sub-block j of 32 values).
inline __m256i q4k_min_sums(const BlockQ4_Kx8& b, const BlockQ8K& x) {
  __m256i sum = _mm256_setzero_si256();
  for (int j = 0; j < 8; j += 2) {
    const int s0 = x.bsums[2 * j] + x.bsums[2 * j + 1], s1 = x.bsums[2 * j + 2] + x.bsums[2 * j + 3];
    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pairs_u8(b.mins[j], b.mins[j + 1]), both_lanes(s0, s1)));
  }
  return sum;
}

// Q6_K: lane i = sum_j scale_j[i] * (x's sum over sub-block j of 16 values).
inline __m256i q6k_offset_sums(const BlockQ6_Kx8& b, const BlockQ8K& x) {
  __m256i sum = _mm256_setzero_si256();
  for (int j = 0; j < 16; j += 2)
    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pairs_i8(b.scales[j], b.scales[j + 1]),
                                                  both_lanes(x.bsums[j], x.bsums[j + 1])));
  return sum;
}

// The top two bits of Q6_K vectors u + 16s (bits 2s, 2s + 1 of each qh byte) at bits 4, 5. The
// 16-bit shifts move no bit that the 0x30 mask keeps across a byte.
template <int s>
inline __m256i q6k_high(__m256i qh) {
  const __m256i mask = _mm256_set1_epi8(0x30);
  if constexpr (s == 0) return _mm256_and_si256(_mm256_slli_epi16(qh, 4), mask);
  if constexpr (s == 1) return _mm256_and_si256(_mm256_slli_epi16(qh, 2), mask);
  if constexpr (s == 2) return _mm256_and_si256(qh, mask);
  if constexpr (s == 3) return _mm256_and_si256(_mm256_srli_epi16(qh, 2), mask);
}

// The 6-bit codes of Q6_K vector t, in sub-block j = t / 4.
template <int j>
inline __m256i q6k_codes(const BlockQ6_Kx8& b, int t) {
  const __m256i low4 = _mm256_set1_epi8(0xF);
  const __m256i ql = load256(b.ql[t % 32]);
  const __m256i nibbles =
      j < 8 ? _mm256_and_si256(ql, low4) : _mm256_and_si256(_mm256_srli_epi16(ql, 4), low4);
  return _mm256_or_si256(nibbles, q6k_high<j / 4>(load256(b.qh[t % 16])));
}

}  // namespace
}  // namespace kernels::r8k
