// The 256-bit parts of the attention tile step that the AVX2 and the AVX-512 kernels share, so
// that both compute the same bits: the reduction of 8 keys' accumulators into their scores, and
// the online-softmax update of one query head over a tile's 16 scores. Included only by
// translation units built with AVX2 + FMA or wider; everything here has internal linkage, so each
// file keeps the instructions of its own flags (an inline function shared by name would let the
// linker give the AVX2 file the AVX-512 file's copy).
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "kernels/cpu/attention_tile.h"

namespace kernels::attention_avx {
namespace {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// e^x for x <= 0 (softmax arguments), relative error about 2e-7: 2^(x log2 e) split into an
// integer power (exponent bits) and a degree-6 polynomial on the remainder in [-0.5, 0.5].
inline __m256 exp_nonpositive(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));  // below: e^x underflows to 0 in float anyway
  const __m256 t = _mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f));
  const __m256 n = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // r = x - n ln 2 in two steps (Cody-Waite), |r| <= ln2 / 2.
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187045e-06f), r);
  __m256 p = _mm256_set1_ps(1.0f / 720);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

// scale * (lane sums of the 8 keys' accumulators a[0..8)): lane j = ((x0 + x1) + (x2 + x3)) +
// ((x4 + x5) + (x6 + x7)) over the 8 lanes x of a[j], the same sum for every lane.
inline __m256 key_scores(const __m256* a, __m256 scale) {
  const __m256 h0123 = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
  const __m256 h4567 = _mm256_hadd_ps(_mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7]));
  const __m256 lo = _mm256_permute2f128_ps(h0123, h4567, 0x20);
  const __m256 hi = _mm256_permute2f128_ps(h0123, h4567, 0x31);
  return _mm256_mul_ps(_mm256_add_ps(lo, hi), scale);
}

// What a tile's softmax step leaves for the value sum: acc = acc * c (when rescale) + sum_t p[t] v_t.
struct TileWeights {
  alignas(32) float p[kAttentionTile];
  bool rescale;
  float c;
};

// Advances state.max and state.sum over the scores of keys 0..7 (raw0) and 8..15 (raw1, read only
// when n > 8) of a tile of which the row sees keys t < n, and returns the value sum's weights.
inline TileWeights softmax_step(__m256 raw0, __m256 raw1, int32_t n, const AttentionScores& scores,
                                OnlineSoftmax& state) {
  static_assert(kAttentionTile == 16, "two groups of 8 keys");
  const __m256 lanes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 nv = _mm256_set1_ps(static_cast<float>(n));
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  // Keys at or past n masked off.
  const __m256 mask0 = _mm256_cmp_ps(lanes, nv, _CMP_LT_OQ);
  __m256 s0 = _mm256_blendv_ps(neg_inf, raw0, mask0);
  __m256 mask1 = _mm256_setzero_ps(), s1 = neg_inf;
  if (n > 8) {
    mask1 = _mm256_cmp_ps(_mm256_add_ps(lanes, _mm256_set1_ps(8)), nv, _CMP_LT_OQ);
    s1 = _mm256_blendv_ps(neg_inf, raw1, mask1);
  }
  if (scores.softcap > 0) {  // cap * tanh(score / cap), one score at a time (Gemma 2)
    alignas(32) float s[kAttentionTile];
    _mm256_store_ps(s, s0);
    _mm256_store_ps(s + 8, s1);
    for (int32_t t = 0; t < n; ++t) s[t] = scores.softcap * std::tanh(s[t] * (1.0f / scores.softcap));
    s0 = _mm256_blendv_ps(neg_inf, _mm256_load_ps(s), mask0);
    if (n > 8) s1 = _mm256_blendv_ps(neg_inf, _mm256_load_ps(s + 8), mask1);
  }
  // New running max; the old sum and output scale by e^(old max - new max) when it grew.
  TileWeights w;
  const float tile_max = hmax(_mm256_max_ps(s0, s1));
  w.rescale = tile_max > state.max;
  w.c = 1.0f;
  if (w.rescale) {
    w.c = state.max == -INFINITY
              ? 0.0f
              : _mm_cvtss_f32(_mm256_castps256_ps128(exp_nonpositive(_mm256_set1_ps(state.max - tile_max))));
    state.max = tile_max;
  }
  const __m256 mv = _mm256_set1_ps(state.max);
  const __m256 p0 = _mm256_and_ps(exp_nonpositive(_mm256_sub_ps(s0, mv)), mask0);
  const __m256 p1 = _mm256_and_ps(exp_nonpositive(_mm256_sub_ps(s1, mv)), mask1);
  state.sum = state.sum * w.c + hsum(_mm256_add_ps(p0, p1));
  _mm256_store_ps(w.p, p0);
  _mm256_store_ps(w.p + 8, p1);
  return w;
}

}  // namespace
}  // namespace kernels::attention_avx
