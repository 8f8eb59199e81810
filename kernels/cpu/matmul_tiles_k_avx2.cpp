// AVX2 + FMA + F16C matmul tiles for Q4_K and Q6_K weights against Q8_K activation rows (see
// matmul_tiles.h): one weight row's super-block is decoded once (nibbles, 6-bit scales and mins,
// Q6_K's high bits) and meets up to four activation rows. Per (weight row, activation row) pair
// and super-block: exact int32 lane sums of scale * (q · x), then acc += float(sums) * d_w * d_x;
// the mins (Q4_K) and the -32 offset (Q6_K) come from the activations' 16-value block sums in
// the same way, so every pair runs the same operations whatever shares its tile.
#include "kernels/cpu/matmul_tiles.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quant/dot_blocks.h"

namespace kernels {

namespace {

inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Unsigned bytes u · signed bytes s, each 16-bit pair sum scaled by `scale16`, into 8 int32 lanes.
inline __m256i dot_u8_scaled(__m256i u, __m256i s, __m256i scale16) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), scale16);
}

// Prefetches the super-block 2 KiB ahead in the weight row (every cache line of it): one decode
// row is a single stream the hardware prefetcher alone keeps at ~12 GB/s per thread.
template <typename Block>
inline void prefetch_ahead(const Block* b) {
  const char* p = reinterpret_cast<const char*>(b) + 2048;
  for (size_t off = 0; off < sizeof(Block); off += 64) _mm_prefetch(p + off, _MM_HINT_T0);
}

inline const BlockQ8K* q8k_row(const DotRows& x, int64_t j) {
  return reinterpret_cast<const BlockQ8K*>(x.data + static_cast<size_t>(j) * x.stride);
}

// One Q4_K weight row against activation rows j0 .. j0 + C - 1: y[(j0 + c) * y_stride].
template <int C>
void q4_k_tile(const BlockQ4K* w, const DotRows& x, int64_t j0, int64_t num_blocks, float* y,
               int64_t y_stride) {
  const __m256i low4 = _mm256_set1_epi8(0xF);
  __m256 acc[C], acc_min[C];
  const BlockQ8K* xr[C];
  for (int c = 0; c < C; ++c) {
    acc[c] = acc_min[c] = _mm256_setzero_ps();
    xr[c] = q8k_row(x, j0 + c);
  }
  for (int64_t k = 0; k < num_blocks; ++k) {
    const BlockQ4K& b = w[k];
    prefetch_ahead(&b);
    uint8_t sc[8], mn[8];
    for (int j = 0; j < 8; ++j) k_scale_min(j, b.scales, sc[j], mn[j]);
    // min_j for each of the 16 block sums (two per sub-block of 32).
    int64_t mn8;
    std::memcpy(&mn8, mn, 8);
    const __m128i mins8 = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(mn8));
    const __m256i mins16 =
        _mm256_set_m128i(_mm_unpackhi_epi16(mins8, mins8), _mm_unpacklo_epi16(mins8, mins8));
    __m256i sumi[C];
    for (int c = 0; c < C; ++c) sumi[c] = _mm256_setzero_si256();
    for (int q = 0; q < 4; ++q) {
      const __m256i packed = load256(b.qs + 32 * q);
      const __m256i lo = _mm256_and_si256(packed, low4);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(packed, 4), low4);
      const __m256i s0 = _mm256_set1_epi16(sc[2 * q]), s1 = _mm256_set1_epi16(sc[2 * q + 1]);
      for (int c = 0; c < C; ++c) {
        const int8_t* xq = xr[c][k].qs + 64 * q;
        sumi[c] = _mm256_add_epi32(sumi[c], _mm256_add_epi32(dot_u8_scaled(lo, load256(xq), s0),
                                                             dot_u8_scaled(hi, load256(xq + 32), s1)));
      }
    }
    const float dw = _cvtsh_ss(b.d), dmin = _cvtsh_ss(b.dmin);
    for (int c = 0; c < C; ++c) {
      const BlockQ8K& xb = xr[c][k];
      acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi[c]), _mm256_set1_ps(xb.d * dw), acc[c]);
      const __m256i m = _mm256_madd_epi16(load256(xb.bsums), mins16);
      acc_min[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(m), _mm256_set1_ps(xb.d * dmin), acc_min[c]);
    }
  }
  for (int c = 0; c < C; ++c) y[(j0 + c) * y_stride] = hsum(acc[c]) - hsum(acc_min[c]);
}

// One Q6_K weight row against activation rows j0 .. j0 + C - 1. The 6-bit values are used
// unsigned (0..63); the -32 offset comes off as 32 * sum_j scale_j * (block sum j).
template <int C>
void q6_k_tile(const BlockQ6K* w, const DotRows& x, int64_t j0, int64_t num_blocks, float* y,
               int64_t y_stride) {
  const __m256i low4 = _mm256_set1_epi8(0xF);
  const __m256i low2 = _mm256_set1_epi8(3);
  __m256 acc[C], acc_offset[C];
  const BlockQ8K* xr[C];
  for (int c = 0; c < C; ++c) {
    acc[c] = acc_offset[c] = _mm256_setzero_ps();
    xr[c] = q8k_row(x, j0 + c);
  }
  for (int64_t k = 0; k < num_blocks; ++k) {
    const BlockQ6K& b = w[k];
    prefetch_ahead(&b);
    __m256i sumi[C];
    for (int c = 0; c < C; ++c) sumi[c] = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const __m256i ql0 = load256(b.ql + 64 * h);
      const __m256i ql1 = load256(b.ql + 64 * h + 32);
      const __m256i qh = load256(b.qh + 32 * h);
      for (int r = 0; r < 4; ++r) {
        // Run r of 32 values: low / high nibbles of ql0 / ql1, bits 2r..2r+1 of qh.
        const __m256i src = (r & 1) ? ql1 : ql0;
        const __m256i nib =
            (r & 2) ? _mm256_and_si256(_mm256_srli_epi16(src, 4), low4) : _mm256_and_si256(src, low4);
        const __m256i high = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * r), low2), 4);
        const __m256i q = _mm256_or_si256(nib, high);
        // Sub-blocks of 16: scales 8h + 2r (values 0..15 of the run) and 8h + 2r + 1 (16..31).
        const __m256i scale16 = _mm256_set_m128i(_mm_set1_epi16(b.scales[8 * h + 2 * r + 1]),
                                                 _mm_set1_epi16(b.scales[8 * h + 2 * r]));
        for (int c = 0; c < C; ++c)
          sumi[c] =
              _mm256_add_epi32(sumi[c], dot_u8_scaled(q, load256(xr[c][k].qs + 128 * h + 32 * r), scale16));
      }
    }
    const __m256i scales16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales)));
    const float dw = _cvtsh_ss(b.d);
    for (int c = 0; c < C; ++c) {
      const BlockQ8K& xb = xr[c][k];
      const float d = xb.d * dw;
      acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi[c]), _mm256_set1_ps(d), acc[c]);
      const __m256i off = _mm256_madd_epi16(load256(xb.bsums), scales16);
      acc_offset[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(off), _mm256_set1_ps(32.0f * d), acc_offset[c]);
    }
  }
  for (int c = 0; c < C; ++c) y[(j0 + c) * y_stride] = hsum(acc[c]) - hsum(acc_offset[c]);
}

template <typename Block, template <int> class Tile>
void k_tile_matmul(const MatrixView& w, int64_t r0, int64_t r1, const DotRows& x, int64_t j0, int64_t j1,
                   float* y, int64_t y_stride) {
  const int64_t num_blocks = w.cols / kQK_K;
  for (int64_t r = r0; r < r1; ++r) {
    const auto* row = reinterpret_cast<const Block*>(w.row(r));
    float* out = y + r;
    int64_t j = j0;
    for (; j + 4 <= j1; j += 4) Tile<4>::run(row, x, j, num_blocks, out, y_stride);
    switch (j1 - j) {
      case 3:
        Tile<3>::run(row, x, j, num_blocks, out, y_stride);
        break;
      case 2:
        Tile<2>::run(row, x, j, num_blocks, out, y_stride);
        break;
      case 1:
        Tile<1>::run(row, x, j, num_blocks, out, y_stride);
        break;
      default:
        break;
    }
  }
}

template <int C>
struct Q4KTile {
  static void run(const BlockQ4K* w, const DotRows& x, int64_t j0, int64_t nb, float* y, int64_t s) {
    q4_k_tile<C>(w, x, j0, nb, y, s);
  }
};

template <int C>
struct Q6KTile {
  static void run(const BlockQ6K* w, const DotRows& x, int64_t j0, int64_t nb, float* y, int64_t s) {
    q6_k_tile<C>(w, x, j0, nb, y, s);
  }
};

}  // namespace

KTileMatmulFn avx2_k_tile_matmul(GgmlType type) {
  switch (type) {
    case GgmlType::Q4_K:
      return k_tile_matmul<BlockQ4K, Q4KTile>;
    case GgmlType::Q6_K:
      return k_tile_matmul<BlockQ6K, Q6KTile>;
    default:
      return nullptr;
  }
}

}  // namespace kernels

#else

namespace kernels {

KTileMatmulFn avx2_k_tile_matmul(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
