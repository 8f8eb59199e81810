// AVX2 + FMA + F16C matmul tiles for F16 and BF16 weights: one weight row's chunk of 32 values is
// converted to F32 once and meets two activation rows, whose F16 (BF16) values were widened to
// F32 once per matmul. Per pair the operations are those of the single-row dot kernel
// (vec_dot_avx2.cpp's dot_half: four accumulators over chunks of 32, then chunks of 8 into the
// first, the same horizontal sum, a scalar tail), on the same values, so a row's products are
// bit for bit those of a one-row matmul.
#include "kernels/cpu/matmul_tiles.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/half.h"

namespace kernels {

namespace {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline __m256 load_f16(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

inline __m256 load_bf16(const uint16_t* p) {
  const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}

template <bool kBf16>
inline __m256 load_half(const uint16_t* p) {
  if constexpr (kBf16)
    return load_bf16(p);
  else
    return load_f16(p);
}

template <bool kBf16>
inline float half_to_float(uint16_t h) {
  if constexpr (kBf16)
    return bf16_to_f32(h);
  else
    return f16_to_f32(h);
}

// Weight row w (n values) against activation rows x0 .. x0 + C - 1 (F32, `x_stride` apart).
template <bool kBf16, int C>
void half_tile(const uint16_t* w, const float* x, int64_t x_stride, int64_t n, float* y, int64_t y_stride) {
  __m256 acc[C][4];
  for (int c = 0; c < C; ++c)
    for (int k = 0; k < 4; ++k) acc[c][k] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 wv[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) wv[k] = load_half<kBf16>(w + i + 8 * k);
#pragma GCC unroll 2
    for (int c = 0; c < C; ++c)
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k)
        acc[c][k] = _mm256_fmadd_ps(wv[k], _mm256_loadu_ps(x + c * x_stride + i + 8 * k), acc[c][k]);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 wv = load_half<kBf16>(w + i);
    for (int c = 0; c < C; ++c)
      acc[c][0] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(x + c * x_stride + i), acc[c][0]);
  }
  for (int c = 0; c < C; ++c) {
    float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc[c][0], acc[c][1]), _mm256_add_ps(acc[c][2], acc[c][3])));
    for (int64_t t = i; t < n; ++t) sum += half_to_float<kBf16>(w[t]) * x[c * x_stride + t];
    y[c * y_stride] = sum;
  }
}

template <bool kBf16>
void half_tile_matmul(const MatrixView& w, int64_t r0, int64_t r1, const float* x, int64_t x_stride,
                      int64_t j0, int64_t j1, float* y, int64_t y_stride) {
  for (int64_t r = r0; r < r1; ++r) {
    const auto* row = reinterpret_cast<const uint16_t*>(w.row(r));
    int64_t j = j0;
    for (; j + 2 <= j1; j += 2)
      half_tile<kBf16, 2>(row, x + j * x_stride, x_stride, w.cols, y + j * y_stride + r, y_stride);
    if (j < j1) half_tile<kBf16, 1>(row, x + j * x_stride, x_stride, w.cols, y + j * y_stride + r, y_stride);
  }
}

}  // namespace

HalfTileMatmulFn avx2_half_tile_matmul(GgmlType type) {
  switch (type) {
    case GgmlType::F16:
      return half_tile_matmul<false>;
    case GgmlType::BF16:
      return half_tile_matmul<true>;
    default:
      return nullptr;
  }
}

}  // namespace kernels

#else

namespace kernels {

HalfTileMatmulFn avx2_half_tile_matmul(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
