// AVX2 + FMA + F16C matmul tiles for Q8_0 / Q4_0 / Q5_0 weights against widened Q8_0
// activations (see matmul_tiles.h). One step takes block k of four weight rows (decoded to int16
// once) and of C activation rows: 4 x C integer dots of two vpmaddwd each; the four weight rows'
// int32 vectors of one activation row are folded into one vector whose lanes are
// [row 0..3 sums of values 0-7 and 16-23 | row 0..3 sums of values 8-15 and 24-31] (exact
// integers), which is converted and multiplied by [d_w(row) * d_x] once for all four rows.
#include "kernels/cpu/matmul_tiles.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/quant/dot_blocks.h"

namespace kernels {

namespace {

inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

// How far ahead a single weight row stream is prefetched (bytes): the hardware prefetcher alone
// left one decode thread at ~12 GB/s; 2-4 KiB ahead gave ~1.2x in a micro-benchmark.
constexpr int kRowPrefetch = 2048;

inline __m128i load128(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}

// The 32 signed values of a block as two vectors of 16 int16 (values 0-15, 16-31): Q8_0 as
// stored, Q4_0 nibble - 8, Q5_0 (nibble | fifth bit << 4) - 16.
inline void widen_block(const BlockQ8_0& b, __m256i& lo, __m256i& hi) {
  lo = _mm256_cvtepi8_epi16(load128(b.qs));
  hi = _mm256_cvtepi8_epi16(load128(b.qs + 16));
}

inline void widen_block(const BlockQ4_0& b, __m256i& lo, __m256i& hi) {
  const __m128i packed = load128(b.qs);
  const __m128i low4 = _mm_set1_epi8(0xF), eight = _mm_set1_epi8(8);
  lo = _mm256_cvtepi8_epi16(_mm_sub_epi8(_mm_and_si128(packed, low4), eight));
  hi = _mm256_cvtepi8_epi16(_mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(packed, 4), low4), eight));
}

inline void widen_block(const BlockQ5_0& b, __m256i& lo, __m256i& hi) {
  const __m128i packed = load128(b.qs);
  const __m128i low4 = _mm_set1_epi8(0xF);
  uint32_t qh;
  std::memcpy(&qh, b.qh, 4);
  // Byte i takes byte i / 8 of qh and keeps bit i % 8: 0xFF where value i has its fifth bit.
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(qh)),
      _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0x0000000000000000));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  const __m256i no_fifth =
      _mm256_andnot_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit), _mm256_set1_epi8(-16));
  // q - 16 as a signed byte: the nibble where the fifth bit is set, nibble | 0xF0 where not.
  lo = _mm256_cvtepi8_epi16(_mm_or_si128(_mm_and_si128(packed, low4), _mm256_castsi256_si128(no_fifth)));
  hi = _mm256_cvtepi8_epi16(
      _mm_or_si128(_mm_and_si128(_mm_srli_epi16(packed, 4), low4), _mm256_extracti128_si256(no_fifth, 1)));
}

// [a0+a2, b0+b2, a1+a3, b1+b3 | a4+a6, b4+b6, a5+a7, b5+b7]
inline __m256i fold2(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
}

// Lanes [a, b, c, d | a, b, c, d]: each the sum of half of that vector's lanes (0-3 | 4-7).
inline __m256i fold4(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = fold2(a, b), cd = fold2(c, d);
  return _mm256_add_epi32(_mm256_unpacklo_epi64(ab, cd), _mm256_unpackhi_epi64(ab, cd));
}

// Weight rows w[0..3] (block arrays) against activation rows j0 .. j0 + C - 1; writes rows
// 0..num_w-1 of the result.
template <typename Block, int C>
void tile(const Block* const w[4], int num_w, const WideRows& x, int64_t j0, float* y, int64_t y_stride,
          ptrdiff_t prefetch) {
  const int64_t nb = x.blocks;
  __m256 acc[C];
  for (int c = 0; c < C; ++c) acc[c] = _mm256_setzero_ps();
  const int16_t* xq = x.q + j0 * nb * kQK8_0;
  const float* xs = x.scales + j0 * nb;
  for (int64_t k = 0; k < nb; ++k) {
    __m256i lo[4], hi[4];
    for (int i = 0; i < 4; ++i) {
      // The group after next: its four short row streams are too short for the hardware to see.
      _mm_prefetch(reinterpret_cast<const char*>(w[i] + k) + prefetch, _MM_HINT_T0);
      widen_block(w[i][k], lo[i], hi[i]);
    }
    const __m128 dw4 = _mm_cvtph_ps(
        _mm_setr_epi16(static_cast<int16_t>(w[0][k].d), static_cast<int16_t>(w[1][k].d),
                       static_cast<int16_t>(w[2][k].d), static_cast<int16_t>(w[3][k].d), 0, 0, 0, 0));
    const __m256 dw = _mm256_set_m128(dw4, dw4);
    for (int c = 0; c < C; ++c) {
      const int16_t* q = xq + (c * nb + k) * kQK8_0;
      const __m256i xl = load256(q), xh = load256(q + 16);
      __m256i s[4];
      for (int i = 0; i < 4; ++i)
        s[i] = _mm256_add_epi32(_mm256_madd_epi16(lo[i], xl), _mm256_madd_epi16(hi[i], xh));
      const __m256 d = _mm256_mul_ps(dw, _mm256_broadcast_ss(xs + c * nb + k));
      acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(fold4(s[0], s[1], s[2], s[3])), d, acc[c]);
    }
  }
  for (int c = 0; c < C; ++c) {
    alignas(16) float out[4];
    _mm_store_ps(out, _mm_add_ps(_mm256_castps256_ps128(acc[c]), _mm256_extractf128_ps(acc[c], 1)));
    for (int i = 0; i < num_w; ++i) y[(j0 + c) * y_stride + i] = out[i];
  }
}

// One weight row against one activation row with exactly the tile's arithmetic (the int32 lanes
// folded into the same two half sums, the same float operations in the same order), reading the
// row as one sequential stream: what a single decode row takes, where four rows at once would
// leave the hardware prefetcher four short streams.
template <typename Block>
float row_dot(const Block* w, const WideRows& x, int64_t j) {
  const int64_t nb = x.blocks;
  const int16_t* xq = x.q + j * nb * kQK8_0;
  const float* xs = x.scales + j * nb;
  __m256 acc = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    _mm_prefetch(reinterpret_cast<const char*>(w + k) + kRowPrefetch, _MM_HINT_T0);
    __m256i lo, hi;
    widen_block(w[k], lo, hi);
    __m256i s = _mm256_add_epi32(_mm256_madd_epi16(lo, load256(xq + k * kQK8_0)),
                                 _mm256_madd_epi16(hi, load256(xq + k * kQK8_0 + 16)));
    // Lane 0: sum of lanes 0-3, lane 4: sum of lanes 4-7 (as fold4 puts them for one row).
    s = _mm256_add_epi32(s, _mm256_shuffle_epi32(s, 0x4E));
    s = _mm256_add_epi32(s, _mm256_shuffle_epi32(s, 0xB1));
    const float d = _cvtsh_ss(w[k].d) * xs[k];
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(d), acc);
  }
  return _mm256_cvtss_f32(acc) + _mm_cvtss_f32(_mm256_extractf128_ps(acc, 1));
}

// The 32 values of a Q4_0 / Q5_0 block as signed bytes (nibble - 8; (nibble | fifth bit) - 16).
inline __m256i block_bytes(const BlockQ4_0& b) {
  const __m128i packed = load128(b.qs);
  const __m256i nibbles =
      _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0xF));
  return _mm256_sub_epi8(nibbles, _mm256_set1_epi8(8));
}

inline __m256i block_bytes(const BlockQ5_0& b) {
  const __m128i packed = load128(b.qs);
  const __m256i nibbles =
      _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0xF));
  uint32_t qh;
  std::memcpy(&qh, b.qh, 4);
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(qh)),
      _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0x0000000000000000));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  const __m256i fifth = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
  return _mm256_or_si256(nibbles, _mm256_andnot_si256(fifth, _mm256_set1_epi8(-16)));
}

// row_dot over the Q8_0 activation bytes with vpmaddubsw (sign moved onto the activations),
// for the weight types whose values are cheaper to build as bytes. The int32 lanes hold values
// 4l..4l+3; lanes {0, 1, 4, 5} are the tile's first half sum and {2, 3, 6, 7} its second, so the
// float operations are the tile's, on the same two integers per block.
template <typename Block>
float row_dot_bytes(const Block* w, const WideRows& x, int64_t j) {
  const int64_t nb = x.blocks;
  const auto* xb = reinterpret_cast<const BlockQ8_0*>(x.q8 + static_cast<size_t>(j) * x.q8_stride);
  const float* xs = x.scales + j * nb;
  const __m256i ones = _mm256_set1_epi16(1);
  __m128 acc = _mm_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    _mm_prefetch(reinterpret_cast<const char*>(w + k) + kRowPrefetch, _MM_HINT_T0);
    const __m256i wq = block_bytes(w[k]);
    const __m256i s = _mm256_madd_epi16(
        _mm256_maddubs_epi16(_mm256_sign_epi8(wq, wq), _mm256_sign_epi8(load256(xb[k].qs), wq)), ones);
    __m128i u = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    u = _mm_add_epi32(u, _mm_shuffle_epi32(u, 0xB1));  // lane 0: first half, lane 2: second half
    const float d = _cvtsh_ss(w[k].d) * xs[k];
    acc = _mm_fmadd_ps(_mm_cvtepi32_ps(u), _mm_set1_ps(d), acc);
  }
  return _mm_cvtss_f32(acc) + _mm_cvtss_f32(_mm_movehl_ps(acc, acc));
}

template <typename Block>
float row_dot_any(const Block* w, const WideRows& x, int64_t j) {
  if constexpr (!std::is_same_v<Block, BlockQ8_0>)
    if (x.q8 != nullptr) return row_dot_bytes(w, x, j);
  return row_dot(w, x, j);
}

template <typename Block>
void tile_matmul(const MatrixView& w, int64_t r0, int64_t r1, const WideRows& x, int64_t j0, int64_t j1,
                 float* y, int64_t y_stride) {
  if (j1 - j0 == 1) {
    for (int64_t r = r0; r < r1; ++r)
      y[j0 * y_stride + r] = row_dot_any(reinterpret_cast<const Block*>(w.row(r)), x, j0);
    return;
  }
  for (int64_t r = r0; r < r1; r += 4) {
    const int num_w = static_cast<int>(std::min<int64_t>(4, r1 - r));
    // A short last group repeats its last row; those lanes are computed and not written.
    const Block* rows[4];
    for (int i = 0; i < 4; ++i) rows[i] = reinterpret_cast<const Block*>(w.row(r + std::min(i, num_w - 1)));
    float* out = y + r;
    const auto prefetch = static_cast<ptrdiff_t>(8 * w.row_stride);
    int64_t j = j0;
    for (; j + 4 <= j1; j += 4) tile<Block, 4>(rows, num_w, x, j, out, y_stride, prefetch);
    switch (j1 - j) {
      case 3:
        tile<Block, 3>(rows, num_w, x, j, out, y_stride, prefetch);
        break;
      case 2:
        tile<Block, 2>(rows, num_w, x, j, out, y_stride, prefetch);
        break;
      case 1:
        tile<Block, 1>(rows, num_w, x, j, out, y_stride, prefetch);
        break;
      default:
        break;
    }
  }
}

}  // namespace

TileMatmulFn avx2_tile_matmul(GgmlType type) {
  switch (type) {
    case GgmlType::Q8_0:
      return tile_matmul<BlockQ8_0>;
    case GgmlType::Q4_0:
      return tile_matmul<BlockQ4_0>;
    case GgmlType::Q5_0:
      return tile_matmul<BlockQ5_0>;
    default:
      return nullptr;
  }
}

void widen_q8_0_row(const std::byte* row, int64_t blocks, int16_t* q, float* scales) {
  const auto* b = reinterpret_cast<const BlockQ8_0*>(row);
  for (int64_t k = 0; k < blocks; ++k) {
    __m256i lo, hi;
    widen_block(b[k], lo, hi);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + k * kQK8_0), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + k * kQK8_0 + 16), hi);
    scales[k] = _cvtsh_ss(b[k].d);
  }
}

}  // namespace kernels

#else

#include <cstring>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"

namespace kernels {

TileMatmulFn avx2_tile_matmul(GgmlType) {
  return nullptr;
}

void widen_q8_0_row(const std::byte* row, int64_t blocks, int16_t* q, float* scales) {
  const auto* b = reinterpret_cast<const BlockQ8_0*>(row);
  for (int64_t k = 0; k < blocks; ++k) {
    for (int i = 0; i < kQK8_0; ++i) q[k * kQK8_0 + i] = b[k].qs[i];
    scales[k] = f16_to_f32(b[k].d);
  }
}

}  // namespace kernels

#endif
