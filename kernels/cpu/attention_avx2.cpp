// AVX2 + FMA attention tile step (see attention_tile.h): the scores of 8 keys at a time, each
// key its own accumulator over head_dim and one reduction tree for the 8 (so a score is the same
// in every lane and every tile), a vectorised exp, and the value sum with 64 output values at a
// time in registers. Plus the F16C conversion of a cache row for the tiles of an F16 cache.
#include "kernels/cpu/attention_tile.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <cstddef>

#include "kernels/cpu/attention_softmax_avx.h"

namespace kernels {

namespace {

using namespace attention_avx;

// scale * q·k[j] for the 8 keys k[0..8), each key its own 8-lane accumulator (key_scores).
inline __m256 scores8(const float* q, const float* const* k, int32_t hd, __m256 scale) {
  __m256 a[8];
  for (int j = 0; j < 8; ++j) a[j] = _mm256_setzero_ps();
  for (int32_t i = 0; i < hd; i += 8) {
    const __m256 qi = _mm256_loadu_ps(q + i);
    for (int j = 0; j < 8; ++j) a[j] = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k[j] + i), a[j]);
  }
  return key_scores(a, scale);
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
  const __m256 sc = _mm256_set1_ps(scores.scale);
  const __m256 s0 = scores8(q, tile.k, hd, sc);
  const __m256 s1 = n > 8 ? scores8(q, tile.k + 8, hd, sc) : _mm256_setzero_ps();
  const TileWeights w = softmax_step(s0, s1, n, scores, state);
  // acc = acc * c + sum_t p_t v_t, 64 columns at a time.
  int32_t col = 0;
  for (; col + 64 <= hd; col += 64) accumulate<8>(w.p, tile.v, n, col, w.rescale, w.c, state.acc);
  for (; col < hd; col += 8) accumulate<1>(w.p, tile.v, n, col, w.rescale, w.c, state.acc);
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

void avx2_attend_tile(const float*, const KvTile&, int32_t, int32_t, const AttentionScores&, OnlineSoftmax&) {
}
void avx2_finish(const OnlineSoftmax&, int32_t, float*) {}
void avx2_f16_to_f32(const std::byte*, float*, int32_t) {}

bool avx2_attention_built() {
  return false;
}

}  // namespace kernels

#endif
