// AVX2 + FMA attention tile step (see attention_tile.h): the scores of 8 keys at a time, each
// key its own accumulator over head_dim and one reduction tree for the 8 (so a score is the same
// in every lane and every tile), a vectorised exp, and the value sum with 64 output values at a
// time in registers. Plus the F16C conversion of a cache row for the tiles of an F16 cache.
#include "kernels/cpu/attention_tile.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace kernels {

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

// scale * q·k[j] for the 8 keys k[0..8): lane j = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7))
// over the 8 lanes x of key j's accumulator, the same sum for every lane.
inline __m256 scores8(const float* q, const float* const* k, int32_t hd, __m256 scale) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  const float *k0 = k[0], *k1 = k[1], *k2 = k[2], *k3 = k[3], *k4 = k[4], *k5 = k[5], *k6 = k[6], *k7 = k[7];
  for (int32_t i = 0; i < hd; i += 8) {
    const __m256 qi = _mm256_loadu_ps(q + i);
    a0 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k0 + i), a0);
    a1 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k1 + i), a1);
    a2 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k2 + i), a2);
    a3 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k3 + i), a3);
    a4 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k4 + i), a4);
    a5 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k5 + i), a5);
    a6 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k6 + i), a6);
    a7 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k7 + i), a7);
  }
  const __m256 h0123 = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
  const __m256 h4567 = _mm256_hadd_ps(_mm256_hadd_ps(a4, a5), _mm256_hadd_ps(a6, a7));
  const __m256 lo = _mm256_permute2f128_ps(h0123, h4567, 0x20);
  const __m256 hi = _mm256_permute2f128_ps(h0123, h4567, 0x31);
  return _mm256_mul_ps(_mm256_add_ps(lo, hi), scale);
}

// acc[0..8*W) = acc * c + sum_{t<n} p[t] v[t][0..8*W), with W eight-float registers.
template <int W>
inline void accumulate(const float* p, const float* const* v, int32_t n, int32_t col, bool rescale, float c,
                       float* acc) {
  __m256 a[W];
  const __m256 cv = _mm256_set1_ps(c);
  for (int i = 0; i < W; ++i) {
    a[i] = _mm256_loadu_ps(acc + col + 8 * i);
    if (rescale) a[i] = _mm256_mul_ps(a[i], cv);
  }
  for (int32_t t = 0; t < n; ++t) {
    const __m256 pt = _mm256_set1_ps(p[t]);
    const float* vt = v[t] + col;
    for (int i = 0; i < W; ++i) a[i] = _mm256_fmadd_ps(pt, _mm256_loadu_ps(vt + 8 * i), a[i]);
  }
  for (int i = 0; i < W; ++i) _mm256_storeu_ps(acc + col + 8 * i, a[i]);
}

}  // namespace

void avx2_attend_tile(const float* q, const KvTile& tile, int32_t n, int32_t hd,
                      const AttentionScores& scores, OnlineSoftmax& state) {
  static_assert(kAttentionTile == 16, "two groups of 8 keys");
  const __m256 sc = _mm256_set1_ps(scores.scale);
  const __m256 lanes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 nv = _mm256_set1_ps(static_cast<float>(n));
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  // Scores of keys 0..7 and, when the row sees them, 8..15; keys at or past n masked off.
  const __m256 mask0 = _mm256_cmp_ps(lanes, nv, _CMP_LT_OQ);
  __m256 s0 = _mm256_blendv_ps(neg_inf, scores8(q, tile.k, hd, sc), mask0);
  __m256 mask1 = _mm256_setzero_ps(), s1 = neg_inf;
  if (n > 8) {
    mask1 = _mm256_cmp_ps(_mm256_add_ps(lanes, _mm256_set1_ps(8)), nv, _CMP_LT_OQ);
    s1 = _mm256_blendv_ps(neg_inf, scores8(q, tile.k + 8, hd, sc), mask1);
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
  const float tile_max = hmax(_mm256_max_ps(s0, s1));
  const bool rescale = tile_max > state.max;
  float c = 1.0f;
  if (rescale) {
    c = state.max == -INFINITY
            ? 0.0f
            : _mm_cvtss_f32(_mm256_castps256_ps128(exp_nonpositive(_mm256_set1_ps(state.max - tile_max))));
    state.max = tile_max;
  }
  const __m256 mv = _mm256_set1_ps(state.max);
  const __m256 p0 = _mm256_and_ps(exp_nonpositive(_mm256_sub_ps(s0, mv)), mask0);
  const __m256 p1 = _mm256_and_ps(exp_nonpositive(_mm256_sub_ps(s1, mv)), mask1);
  state.sum = state.sum * c + hsum(_mm256_add_ps(p0, p1));
  alignas(32) float p[kAttentionTile];
  _mm256_store_ps(p, p0);
  _mm256_store_ps(p + 8, p1);
  // acc = acc * c + sum_t p_t v_t, 64 columns at a time.
  int32_t col = 0;
  for (; col + 64 <= hd; col += 64) accumulate<8>(p, tile.v, n, col, rescale, c, state.acc);
  for (; col < hd; col += 8) accumulate<1>(p, tile.v, n, col, rescale, c, state.acc);
}

void avx2_finish(const OnlineSoftmax& state, int32_t hd, float* out) {
  const __m256 inv = _mm256_set1_ps(1.0f / state.sum);
  for (int32_t i = 0; i < hd; i += 8)
    _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_loadu_ps(state.acc + i), inv));
}

void avx2_f16_to_f32(const std::byte* src, float* dst, int32_t n) {
  for (int32_t i = 0; i < n; i += 8)
    _mm256_storeu_ps(dst + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i))));
}

bool avx2_attention_built() {
  return true;
}

}  // namespace kernels

#else

namespace kernels {

void avx2_attend_tile(const float*, const KvTile&, int32_t, int32_t, float, OnlineSoftmax&) {}
void avx2_finish(const OnlineSoftmax&, int32_t, float*) {}
void avx2_f16_to_f32(const std::byte*, float*, int32_t) {}

bool avx2_attention_built() {
  return false;
}

}  // namespace kernels

#endif
