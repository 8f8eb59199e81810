// The AVX-512 R8 K-quant kernel body, included by matmul_r8_k_avx512.cpp (built with VNNI:
// vpdpbusd) and matmul_r8_k_avx512bw.cpp (without: vpmaddubsw + vpmaddwd, exact since a pair of
// code x activation products, at most 63 x 128 each, fits int16). The integers and float
// operations of matmul_r8_k_avx2.cpp (so the same bits), with two of a sub-block's 32-byte
// vectors per 512-bit register summed in int32; the halves are added, the sum is multiplied by
// the rows' sub-block scales (vpmulld), and the per-super-block float step is the AVX2 one.
// Everything here has internal linkage, so each file keeps the instructions of its own flags.
#pragma once

#include <immintrin.h>

// GCC 12's AVX-512 headers start some results from _mm512_undefined_*(), which -Wuninitialized
// reports once the intrinsics are inlined; those values are always fully overwritten.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <utility>

#include "kernels/cpu/matmul_r8_k_common.h"
#include "kernels/cpu/matmul_r8_loop.h"

namespace kernels {

namespace {

using namespace r8k;
using r8simd::dot_u8s8;

// Lower half: activation values 4a .. 4a + 3 in every lane; upper half: 4(a + 1) .. (of the 32
// or 16 activation bytes in the low lanes of a register).
inline __m512i pair_index(int a) {
  return _mm512_mask_mov_epi32(_mm512_set1_epi32(a), 0xFF00, _mm512_set1_epi32(a + 1));
}

inline __m256i fold(__m512i halves) {
  return _mm256_add_epi32(_mm512_castsi512_si256(halves), _mm512_extracti64x4_epi64(halves, 1));
}

template <int C>
struct Q4KTile {
  static void run(const BlockQ4_Kx8* g, const DotRows& x, int64_t j0, int num_w, float* y, int64_t y_stride,
                  int64_t nb) {
    const __m512i low4 = _mm512_set1_epi8(0xF);
    const __m512i idx[4] = {pair_index(0), pair_index(2), pair_index(4), pair_index(6)};
    const BlockQ8K* xr[C];
    __m256 acc[C], acc_min[C];
    for (int c = 0; c < C; ++c) {
      xr[c] = q8k_row(x, j0 + c);
      acc[c] = acc_min[c] = _mm256_setzero_ps();
    }
    for (int64_t k = 0; k < nb; ++k) {
      const BlockQ4_Kx8& b = g[k];
      prefetch_ahead<2048>(&b);
      __m256i isum[C];
      for (int c = 0; c < C; ++c) isum[c] = _mm256_setzero_si256();
      for (int j = 0; j < 8; ++j) {
        __m512i code[4];
        for (int m = 0; m < 4; ++m) {
          const __m512i packed = _mm512_loadu_si512(b.qs[(8 * j + 2 * m) % 32]);
          code[m] =
              j < 4 ? _mm512_and_si512(packed, low4) : _mm512_and_si512(_mm512_srli_epi16(packed, 4), low4);
        }
        const __m256i scale =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b.scales[j])));
        for (int c = 0; c < C; ++c) {
          const __m512i xz = _mm512_zextsi256_si512(load256(xr[c][k].qs + 32 * j));
          __m512i halves = _mm512_setzero_si512();
          for (int m = 0; m < 4; ++m)
            halves = dot_u8s8(halves, code[m], _mm512_permutexvar_epi32(idx[m], xz));
          isum[c] = _mm256_add_epi32(isum[c], _mm256_mullo_epi32(fold(halves), scale));
        }
      }
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.d)));
      const __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.dmin)));
      for (int c = 0; c < C; ++c) {
        const __m256 dx = _mm256_set1_ps(xr[c][k].d);
        acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[c]), _mm256_mul_ps(dw, dx), acc[c]);
        acc_min[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(q4k_min_sums(b, xr[c][k])), _mm256_mul_ps(dmin, dx),
                                     acc_min[c]);
      }
    }
    for (int c = 0; c < C; ++c) store_rows(_mm256_sub_ps(acc[c], acc_min[c]), num_w, y + (j0 + c) * y_stride);
  }
};

// The top two bits of Q6_K vectors (bits 2s, 2s + 1 of each qh byte) at bits 4, 5.
template <int s>
inline __m512i q6k_high512(__m512i qh) {
  const __m512i mask = _mm512_set1_epi8(0x30);
  if constexpr (s == 0) return _mm512_and_si512(_mm512_slli_epi16(qh, 4), mask);
  if constexpr (s == 1) return _mm512_and_si512(_mm512_slli_epi16(qh, 2), mask);
  if constexpr (s == 2) return _mm512_and_si512(qh, mask);
  if constexpr (s == 3) return _mm512_and_si512(_mm512_srli_epi16(qh, 2), mask);
}

// The codes of Q6_K vectors t and t + 1 of sub-block j.
template <int j>
inline __m512i q6k_codes512(const BlockQ6_Kx8& b, int t) {
  const __m512i low4 = _mm512_set1_epi8(0xF);
  const __m512i ql = _mm512_loadu_si512(b.ql[t % 32]);
  const __m512i nibbles =
      j < 8 ? _mm512_and_si512(ql, low4) : _mm512_and_si512(_mm512_srli_epi16(ql, 4), low4);
  return _mm512_or_si512(nibbles, q6k_high512<j / 4>(_mm512_loadu_si512(b.qh[t % 16])));
}

template <int C, int j>
inline void q6k_sub_block(const BlockQ6_Kx8& b, const BlockQ8K* const xr[C], int64_t k, const __m512i* idx,
                          __m256i* isum) {
  const __m512i c01 = q6k_codes512<j>(b, 4 * j), c23 = q6k_codes512<j>(b, 4 * j + 2);
  const __m256i scale = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b.scales[j])));
  for (int c = 0; c < C; ++c) {
    const __m512i xz =
        _mm512_zextsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xr[c][k].qs + 16 * j)));
    __m512i halves = dot_u8s8(_mm512_setzero_si512(), c01, _mm512_permutexvar_epi32(idx[0], xz));
    halves = dot_u8s8(halves, c23, _mm512_permutexvar_epi32(idx[1], xz));
    const __m256i s = _mm256_sub_epi32(fold(halves), _mm256_set1_epi32(32 * xr[c][k].bsums[j]));
    isum[c] = _mm256_add_epi32(isum[c], _mm256_mullo_epi32(s, scale));
  }
}

template <int C>
struct Q6KTile {
  static void run(const BlockQ6_Kx8* g, const DotRows& x, int64_t j0, int num_w, float* y, int64_t y_stride,
                  int64_t nb) {
    const __m512i idx[2] = {pair_index(0), pair_index(2)};
    const BlockQ8K* xr[C];
    __m256 acc[C];
    for (int c = 0; c < C; ++c) {
      xr[c] = q8k_row(x, j0 + c);
      acc[c] = _mm256_setzero_ps();
    }
    for (int64_t k = 0; k < nb; ++k) {
      const BlockQ6_Kx8& b = g[k];
      prefetch_ahead<2048>(&b);
      __m256i isum[C];  // sum_j scale_j * (q . x - 32 * x's sum), the AVX2 kernel's integer
      for (int c = 0; c < C; ++c) isum[c] = _mm256_setzero_si256();
      [&]<int... J>(std::integer_sequence<int, J...>) {
        (q6k_sub_block<C, J>(b, xr, k, idx, isum), ...);
      }
      (std::make_integer_sequence<int, 16>{});
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.d)));
      for (int c = 0; c < C; ++c)
        acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[c]), _mm256_mul_ps(dw, _mm256_set1_ps(xr[c][k].d)),
                                 acc[c]);
    }
    for (int c = 0; c < C; ++c) store_rows(acc[c], num_w, y + (j0 + c) * y_stride);
  }
};

template <typename Packed, template <int> class Tile>
void r8k_matmul(const MatrixView& w, int64_t r0, int64_t r1, const DotRows& x, int64_t j0, int64_t j1,
                float* y, int64_t y_stride) {
  const int64_t nb = w.cols / kQK_K;
  for_each_r8_tile<Packed>(w, r0, r1, j0, j1, y,
                           [&](auto c, const Packed* g, int64_t j, int num_w, float* out) {
                             Tile<decltype(c)::value>::run(g, x, j, num_w, out, y_stride, nb);
                           });
}

// This build's kernel for `type`, or nullptr.
inline R8KMatmulFn r8k_kernel(GgmlType type) {
  switch (type) {
    case GgmlType::Q4_K:
      return r8k_matmul<BlockQ4_Kx8, Q4KTile>;
    case GgmlType::Q6_K:
      return r8k_matmul<BlockQ6_Kx8, Q6KTile>;
    default:
      return nullptr;
  }
}

}  // namespace

}  // namespace kernels
