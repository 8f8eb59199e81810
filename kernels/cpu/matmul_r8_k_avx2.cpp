// AVX2 + FMA + F16C matmul over R8-repacked Q4_K / Q6_K weights (matmul_r8.h) and Q8_K
// activation rows. As for the 32-value types, vector t of a super-block holds 4 values of each
// of the group's 8 rows and meets activation values 4t .. 4t + 3 broadcast to every lane, so
// lane i sums row i; per (weight row, activation row) pair and super-block:
//   Q4_K: isum = sum_j scale_j * (q . x over sub-block j), imin = sum_j min_j * (x's sum over
//         sub-block j), both exact int32; acc += float(isum) * (d_w * d_x) and
//         acc_min += float(imin) * (dmin_w * d_x); the result is acc - acc_min.
//   Q6_K: isum = sum_j scale_j * (q . x - 32 * x's sum over sub-block j), exact int32 (q the
//         unsigned code 0..63); acc += float(isum) * (d_w * d_x).
// The code products go through vpmaddubsw into int16 (Q4_K: 8 vectors of at most 2 * 15 * 128
// per pair; Q6_K: 2 vectors of at most 2 * 63 * 128) and vpmaddwd by the scales into int32.
// The AVX-512 kernel (matmul_r8_k_avx512.cpp) computes the same integers and the same float
// operations: both give the same bits, whatever else shares the call.
#include "kernels/cpu/matmul_r8.h"
#include "kernels/cpu/matmul_r8_loop.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <immintrin.h>

#include <cstring>
#include <utility>

#include "kernels/cpu/matmul_r8_k_common.h"

namespace kernels {

namespace {

using namespace r8k;

// Values 4t .. 4t + 3 of an activation super-block in every 32-bit lane.
inline __m256i broadcast4(const int8_t* qs, int t) {
  int32_t v;
  std::memcpy(&v, qs + 4 * t, 4);
  return _mm256_set1_epi32(v);
}

// Lane i (two int16) = byte i of p, twice.
inline __m256i twice_u8(const uint8_t* p) {
  const __m128i v = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  return _mm256_set_m128i(_mm_unpackhi_epi16(v, v), _mm_unpacklo_epi16(v, v));
}
inline __m256i twice_i8(const int8_t* p) {
  const __m128i v = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  return _mm256_set_m128i(_mm_unpackhi_epi16(v, v), _mm_unpacklo_epi16(v, v));
}

template <int C>
struct Q4KTile {
  static void run(const BlockQ4_Kx8* g, const DotRows& x, int64_t j0, int num_w, float* y, int64_t y_stride,
                  int64_t nb) {
    const __m256i low4 = _mm256_set1_epi8(0xF);
    const BlockQ8K* xr[C];
    __m256 acc[C], acc_min[C];
    for (int c = 0; c < C; ++c) {
      xr[c] = q8k_row(x, j0 + c);
      acc[c] = acc_min[c] = _mm256_setzero_ps();
    }
    for (int64_t k = 0; k < nb; ++k) {
      const BlockQ4_Kx8& b = g[k];
      prefetch_ahead<2048>(&b);
      __m256i isum[C], imin[C];
      for (int c = 0; c < C; ++c) isum[c] = _mm256_setzero_si256();
      for (int j = 0; j < 8; ++j) {
        __m256i s16[C];
        for (int c = 0; c < C; ++c) s16[c] = _mm256_setzero_si256();
        for (int m = 0; m < 8; ++m) {
          const int t = 8 * j + m;
          const __m256i packed = load256(b.qs[t % 32]);
          const __m256i code =
              j < 4 ? _mm256_and_si256(packed, low4) : _mm256_and_si256(_mm256_srli_epi16(packed, 4), low4);
          for (int c = 0; c < C; ++c)
            s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(code, broadcast4(xr[c][k].qs, t)));
        }
        const __m256i scale = twice_u8(b.scales[j]);
        for (int c = 0; c < C; ++c) isum[c] = _mm256_add_epi32(isum[c], _mm256_madd_epi16(s16[c], scale));
      }
      for (int c = 0; c < C; ++c) imin[c] = q4k_min_sums(b, xr[c][k]);
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.d)));
      const __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.dmin)));
      for (int c = 0; c < C; ++c) {
        const __m256 dx = _mm256_set1_ps(xr[c][k].d);
        acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[c]), _mm256_mul_ps(dw, dx), acc[c]);
        acc_min[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin[c]), _mm256_mul_ps(dmin, dx), acc_min[c]);
      }
    }
    for (int c = 0; c < C; ++c) store_rows(_mm256_sub_ps(acc[c], acc_min[c]), num_w, y + (j0 + c) * y_stride);
  }
};

// Q6_K sub-block j (vectors 4j .. 4j + 3): codes, their products with C activation rows.
template <int C, int j>
inline void q6k_sub_block(const BlockQ6_Kx8& b, const BlockQ8K* const xr[C], int64_t k, __m256i* isum) {
  const __m256i scale = twice_i8(b.scales[j]);
  for (int pair = 0; pair < 2; ++pair) {
    const int t = 4 * j + 2 * pair;
    const __m256i q0 = q6k_codes<j>(b, t), q1 = q6k_codes<j>(b, t + 1);
    for (int c = 0; c < C; ++c) {
      const __m256i s16 = _mm256_add_epi16(_mm256_maddubs_epi16(q0, broadcast4(xr[c][k].qs, t)),
                                           _mm256_maddubs_epi16(q1, broadcast4(xr[c][k].qs, t + 1)));
      isum[c] = _mm256_add_epi32(isum[c], _mm256_madd_epi16(s16, scale));
    }
  }
}

template <int C>
struct Q6KTile {
  static void run(const BlockQ6_Kx8* g, const DotRows& x, int64_t j0, int num_w, float* y, int64_t y_stride,
                  int64_t nb) {
    const BlockQ8K* xr[C];
    __m256 acc[C];
    for (int c = 0; c < C; ++c) {
      xr[c] = q8k_row(x, j0 + c);
      acc[c] = _mm256_setzero_ps();
    }
    for (int64_t k = 0; k < nb; ++k) {
      const BlockQ6_Kx8& b = g[k];
      prefetch_ahead<2048>(&b);
      __m256i isum[C];
      for (int c = 0; c < C; ++c) isum[c] = _mm256_setzero_si256();
      [&]<int... J>(std::integer_sequence<int, J...>) {
        (q6k_sub_block<C, J>(b, xr, k, isum), ...);
      }
      (std::make_integer_sequence<int, 16>{});
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.d)));
      for (int c = 0; c < C; ++c) {
        const __m256i total = _mm256_sub_epi32(isum[c], _mm256_slli_epi32(q6k_offset_sums(b, xr[c][k]), 5));
        acc[c] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(total), _mm256_mul_ps(dw, _mm256_set1_ps(xr[c][k].d)), acc[c]);
      }
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

}  // namespace

R8KMatmulFn avx2_r8k_matmul(GgmlType type) {
  switch (type) {
    case GgmlType::Q4_K:
      return r8k_matmul<BlockQ4_Kx8, Q4KTile>;
    case GgmlType::Q6_K:
      return r8k_matmul<BlockQ6_Kx8, Q6KTile>;
    default:
      return nullptr;
  }
}

}  // namespace kernels

#else

namespace kernels {

R8KMatmulFn avx2_r8k_matmul(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
