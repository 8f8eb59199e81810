// AVX-512 attention tile step for up to 3 query heads of a GQA group at once (see
// attention_tile.h), computing the AVX2 kernel's arithmetic so both give the same bits: a 512-bit
// register holds the 8-lane accumulators of two keys, so one load of the keys serves every head
// of the call; the scores are reduced, and the softmax stepped, by the AVX2 kernel's own code
// (attention_softmax_avx.h); the value sum loads each value row once for all the heads, 128
// columns at a time. Plus the F16 conversion of a cache row for the tiles of an F16 cache. Built
// for AVX-512 F/BW/DQ without VNNI (cmake/layer.cmake), so every AVX-512 CPU runs it.
#include "kernels/cpu/attention_tile.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__)

#include <immintrin.h>

// GCC 12's AVX-512 headers start some results from _mm512_undefined_*(), which -Wuninitialized
// reports once the intrinsics are inlined; those values are always fully overwritten.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cassert>
#include <cstddef>

#include "kernels/cpu/attention_softmax_avx.h"

namespace kernels {

namespace {

using namespace attention_avx;

// The scores of the 16 keys for each of NQ heads: s[g][0] keys 0..7, s[g][1] keys 8..15. Register
// m of a head holds key 2m's accumulator in its low half and key 2m + 1's in its high half, each
// summed over head_dim 8 lanes at a time in order, as the AVX2 kernel does.
template <int NQ>
inline void scores16(const float* const* q, const float* const* k, int32_t hd, __m256 scale, __m256 (*s)[2]) {
  __m512 a[NQ][8];
  for (int g = 0; g < NQ; ++g)
    for (int m = 0; m < 8; ++m) a[g][m] = _mm512_setzero_ps();
  for (int32_t i = 0; i < hd; i += 8) {
    __m512 qi[NQ];
    for (int g = 0; g < NQ; ++g) qi[g] = _mm512_broadcast_f32x8(_mm256_loadu_ps(q[g] + i));
    for (int m = 0; m < 8; ++m) {
      const __m512 kk = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(k[2 * m] + i)),
                                           _mm256_loadu_ps(k[2 * m + 1] + i), 1);
      for (int g = 0; g < NQ; ++g) a[g][m] = _mm512_fmadd_ps(qi[g], kk, a[g][m]);
    }
  }
  for (int g = 0; g < NQ; ++g) {
    __m256 keys[kAttentionTile];
    for (int m = 0; m < 8; ++m) {
      keys[2 * m] = _mm512_castps512_ps256(a[g][m]);
      keys[2 * m + 1] = _mm512_extractf32x8_ps(a[g][m], 1);
    }
    s[g][0] = key_scores(keys, scale);
    s[g][1] = key_scores(keys + 8, scale);
  }
}

// acc_g[col, col + 16 W) = acc_g * c_g + sum_{t<n} p_g[t] v[t][col, col + 16 W) for each head g.
template <int NQ, int W>
inline void accumulate(const TileWeights* w, const float* const* v, int32_t n, int32_t col,
                       OnlineSoftmax* const* states) {
  __m512 a[NQ][W];
  for (int g = 0; g < NQ; ++g) {
    const __m512 cv = _mm512_set1_ps(w[g].c);
    for (int i = 0; i < W; ++i) {
      a[g][i] = _mm512_loadu_ps(states[g]->acc + col + 16 * i);
      if (w[g].rescale) a[g][i] = _mm512_mul_ps(a[g][i], cv);
    }
  }
  for (int32_t t = 0; t < n; ++t) {
    __m512 pt[NQ];
    for (int g = 0; g < NQ; ++g) pt[g] = _mm512_set1_ps(w[g].p[t]);
    const float* vt = v[t] + col;
    for (int i = 0; i < W; ++i) {
      const __m512 vi = _mm512_loadu_ps(vt + 16 * i);
      for (int g = 0; g < NQ; ++g) a[g][i] = _mm512_fmadd_ps(pt[g], vi, a[g][i]);
    }
  }
  for (int g = 0; g < NQ; ++g)
    for (int i = 0; i < W; ++i) _mm512_storeu_ps(states[g]->acc + col + 16 * i, a[g][i]);
}

template <int NQ>
void attend_heads(const float* const* q, const KvTile& tile, int32_t n, int32_t hd,
                  const AttentionScores& scores, OnlineSoftmax* const* states) {
  __m256 s[NQ][2];
  scores16<NQ>(q, tile.k, hd, _mm256_set1_ps(scores.scale), s);
  TileWeights w[NQ];
  for (int g = 0; g < NQ; ++g) w[g] = softmax_step(s[g][0], s[g][1], n, scores, *states[g]);
  int32_t col = 0;
  for (; col + 128 <= hd; col += 128) accumulate<NQ, 8>(w, tile.v, n, col, states);
  for (; col + 64 <= hd; col += 64) accumulate<NQ, 4>(w, tile.v, n, col, states);
  for (; col < hd; col += 16) accumulate<NQ, 1>(w, tile.v, n, col, states);
}

}  // namespace

void avx512_attend_tile_heads(const float* const* q, int32_t num_heads, const KvTile& tile, int32_t n,
                              int32_t hd, const AttentionScores& scores, OnlineSoftmax* const* states) {
  assert(num_heads >= 1 && num_heads <= 3 && hd % 16 == 0);
  switch (num_heads) {
    case 1:
      return attend_heads<1>(q, tile, n, hd, scores, states);
    case 2:
      return attend_heads<2>(q, tile, n, hd, scores, states);
    default:
      return attend_heads<3>(q, tile, n, hd, scores, states);
  }
}

void avx512_finish(const OnlineSoftmax& state, int32_t hd, float* out) {
  const __m512 inv = _mm512_set1_ps(1.0f / state.sum);
  for (int32_t i = 0; i < hd; i += 16)
    _mm512_storeu_ps(out + i, _mm512_mul_ps(_mm512_loadu_ps(state.acc + i), inv));
}

void avx512_f16_to_f32(const std::byte* src, float* dst, int32_t n) {
  for (int32_t i = 0; i < n; i += 16)
    _mm512_storeu_ps(dst + i,
                     _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i))));
}

bool avx512_attention_built() {
  return true;
}

}  // namespace kernels

#else

namespace kernels {

void avx512_attend_tile_heads(const float* const*, int32_t, const KvTile&, int32_t, int32_t,
                              const AttentionScores&, OnlineSoftmax* const*) {}
void avx512_finish(const OnlineSoftmax&, int32_t, float*) {}
void avx512_f16_to_f32(const std::byte*, float*, int32_t) {}

bool avx512_attention_built() {
  return false;
}

}  // namespace kernels

#endif
