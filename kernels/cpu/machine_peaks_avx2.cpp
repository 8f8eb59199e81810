// AVX2 loops for the machine peaks of machine_peaks.h: twelve independent accumulator chains,
// so that the loop is bound by instruction throughput, not latency.
#include "kernels/cpu/machine_peaks.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

namespace kernels {

double fma_peak_loop(long iterations) {
  __m256 a0 = _mm256_set1_ps(0.1f), a1 = _mm256_set1_ps(0.2f), a2 = _mm256_set1_ps(0.3f),
         a3 = _mm256_set1_ps(0.4f), a4 = _mm256_set1_ps(0.5f), a5 = _mm256_set1_ps(0.6f),
         a6 = _mm256_set1_ps(0.7f), a7 = _mm256_set1_ps(0.8f), a8 = _mm256_set1_ps(0.9f),
         a9 = _mm256_set1_ps(1.0f), a10 = _mm256_set1_ps(1.1f), a11 = _mm256_set1_ps(1.2f);
  const __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
  for (long i = 0; i < iterations; ++i) {
    a0 = _mm256_fmadd_ps(a0, m, c);
    a1 = _mm256_fmadd_ps(a1, m, c);
    a2 = _mm256_fmadd_ps(a2, m, c);
    a3 = _mm256_fmadd_ps(a3, m, c);
    a4 = _mm256_fmadd_ps(a4, m, c);
    a5 = _mm256_fmadd_ps(a5, m, c);
    a6 = _mm256_fmadd_ps(a6, m, c);
    a7 = _mm256_fmadd_ps(a7, m, c);
    a8 = _mm256_fmadd_ps(a8, m, c);
    a9 = _mm256_fmadd_ps(a9, m, c);
    a10 = _mm256_fmadd_ps(a10, m, c);
    a11 = _mm256_fmadd_ps(a11, m, c);
    __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5));
    __asm__ volatile("" : "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
  }
  const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                 _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  const __m256 t = _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11));
  volatile float sink = _mm256_cvtss_f32(_mm256_add_ps(s, t));
  (void)sink;
  return static_cast<double>(iterations) * 12 * 8;
}

double int8_dot_peak_loop(long iterations) {
  // Six chains of (u8 x s8 -> int16 pairs -> int32 sums added to an accumulator).
  const __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2), ones = _mm256_set1_epi16(1);
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
  __m256i x0 = u, x1 = _mm256_add_epi8(u, ones), x2 = _mm256_sub_epi8(u, ones),
          x3 = _mm256_xor_si256(u, ones), x4 = _mm256_or_si256(u, s), x5 = _mm256_and_si256(u, s);
  for (long i = 0; i < iterations; ++i) {
    a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_maddubs_epi16(x0, s), ones));
    a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_maddubs_epi16(x1, s), ones));
    a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_maddubs_epi16(x2, s), ones));
    a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_maddubs_epi16(x3, s), ones));
    a4 = _mm256_add_epi32(a4, _mm256_madd_epi16(_mm256_maddubs_epi16(x4, s), ones));
    a5 = _mm256_add_epi32(a5, _mm256_madd_epi16(_mm256_maddubs_epi16(x5, s), ones));
    // The inputs stay the same, but the compiler must not hoist the products out of the loop.
    __asm__ volatile("" : "+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3), "+x"(x4), "+x"(x5));
  }
  const __m256i t = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3)),
                                     _mm256_add_epi32(a4, a5));
  volatile int sink = _mm256_extract_epi32(t, 0);
  (void)sink;
  return static_cast<double>(iterations) * 6 * 32;
}

uint64_t read_stream_loop(const uint64_t* data, size_t words) {
  // 256 bytes (four cache lines) per round into four accumulators; no software prefetch (on a
  // Zen 3 it lowered a plain stream's rate: the hardware prefetcher does better alone).
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 32 <= words; i += 32) {
    const auto* v = reinterpret_cast<const __m256i*>(data + i);
    a0 = _mm256_add_epi64(a0, _mm256_add_epi64(_mm256_loadu_si256(v + 0), _mm256_loadu_si256(v + 1)));
    a1 = _mm256_add_epi64(a1, _mm256_add_epi64(_mm256_loadu_si256(v + 2), _mm256_loadu_si256(v + 3)));
    a2 = _mm256_add_epi64(a2, _mm256_add_epi64(_mm256_loadu_si256(v + 4), _mm256_loadu_si256(v + 5)));
    a3 = _mm256_add_epi64(a3, _mm256_add_epi64(_mm256_loadu_si256(v + 6), _mm256_loadu_si256(v + 7)));
  }
  const __m256i t = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
  uint64_t sum =
      static_cast<uint64_t>(_mm256_extract_epi64(t, 0)) + static_cast<uint64_t>(_mm256_extract_epi64(t, 1)) +
      static_cast<uint64_t>(_mm256_extract_epi64(t, 2)) + static_cast<uint64_t>(_mm256_extract_epi64(t, 3));
  for (; i < words; ++i) sum += data[i];
  return sum;
}

}  // namespace kernels

#else

namespace kernels {

double fma_peak_loop(long) {
  return 0;
}
double int8_dot_peak_loop(long) {
  return 0;
}
uint64_t read_stream_loop(const uint64_t* data, size_t words) {
  uint64_t sum = 0;
  for (size_t i = 0; i < words; ++i) sum += data[i];
  return sum;
}

}  // namespace kernels

#endif
