// AVX2 + FMA attention of one query head over contiguous F32 keys and values (the inner loop of
// paged_attention): q·k for four keys at a time, a vectorised exp for the softmax, and the value
// sum with the output kept in registers 64 values at a time. Each row's result depends only on
// its own q, keys and values, never on the other rows of the call.
#include "kernels/cpu/attention_rows.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

#include <algorithm>

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

// q · k for one key (hd a multiple of 8).
inline float dot1(const float* q, const float* k, int32_t hd) {
  __m256 a = _mm256_setzero_ps();
  for (int32_t i = 0; i < hd; i += 8) a = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), _mm256_loadu_ps(k + i), a);
  return hsum(a);
}

}  // namespace

void avx2_attend_rows(const float* q, const float* k, const float* v, int64_t n, int32_t hd, float scale,
                      float* scores, float* out) {
  // scores[t] = scale * q · k_t, four keys per pass over q (each key its own accumulator, so a
  // score is the same whichever group of four it falls in).
  int64_t t = 0;
  for (; t + 4 <= n; t += 4) {
    const float* k0 = k + t * hd;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int32_t i = 0; i < hd; i += 8) {
      const __m256 qi = _mm256_loadu_ps(q + i);
      a0 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k0 + i), a0);
      a1 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k0 + hd + i), a1);
      a2 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k0 + 2 * hd + i), a2);
      a3 = _mm256_fmadd_ps(qi, _mm256_loadu_ps(k0 + 3 * hd + i), a3);
    }
    scores[t] = scale * hsum(a0);
    scores[t + 1] = scale * hsum(a1);
    scores[t + 2] = scale * hsum(a2);
    scores[t + 3] = scale * hsum(a3);
  }
  for (; t < n; ++t) scores[t] = scale * dot1(q, k + t * hd, hd);

  // Softmax: max, e^(s - max), sum; the 1/sum is applied to the output.
  __m256 m8 = _mm256_set1_ps(scores[0]);
  t = 0;
  for (; t + 8 <= n; t += 8) m8 = _mm256_max_ps(m8, _mm256_loadu_ps(scores + t));
  float max = hmax(m8);
  for (; t < n; ++t) max = std::max(max, scores[t]);
  const __m256 mv = _mm256_set1_ps(max);
  __m256 s8 = _mm256_setzero_ps();
  t = 0;
  for (; t + 8 <= n; t += 8) {
    const __m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(scores + t), mv));
    _mm256_storeu_ps(scores + t, e);
    s8 = _mm256_add_ps(s8, e);
  }
  float sum = hsum(s8);
  if (t < n) {
    alignas(32) float tail[8] = {};
    const int64_t rest = n - t;
    for (int64_t i = 0; i < 8; ++i) tail[i] = i < rest ? scores[t + i] - max : -100.0f;
    _mm256_store_ps(tail, exp_nonpositive(_mm256_load_ps(tail)));
    for (int64_t i = 0; i < rest; ++i) {
      scores[t + i] = tail[i];
      sum += tail[i];
    }
  }
  const __m256 inv = _mm256_set1_ps(1.0f / sum);

  // out = (sum_t p_t v_t) / sum, 64 output values at a time in eight accumulators.
  for (int32_t c = 0; c < hd; c += 64) {
    const int32_t width = std::min(64, hd - c);
    __m256 acc[8];
    for (int i = 0; i < 8; ++i) acc[i] = _mm256_setzero_ps();
    for (int64_t u = 0; u < n; ++u) {
      const __m256 p = _mm256_set1_ps(scores[u]);
      const float* vu = v + u * hd + c;
      for (int i = 0; i < width / 8; ++i) acc[i] = _mm256_fmadd_ps(p, _mm256_loadu_ps(vu + 8 * i), acc[i]);
    }
    for (int i = 0; i < width / 8; ++i) _mm256_storeu_ps(out + c + 8 * i, _mm256_mul_ps(acc[i], inv));
  }
}

bool avx2_attention_built() {
  return true;
}

}  // namespace kernels

#else

namespace kernels {

void avx2_attend_rows(const float*, const float*, const float*, int64_t, int32_t, float, float*, float*) {}

bool avx2_attention_built() {
  return false;
}

}  // namespace kernels

#endif
