// The AVX-512 peak loops behind machine_peaks.h: 512-bit FMA chains, and int8 dot chains on
// VNNI's vpdpbusd (64 unsigned x signed byte products summed into 16 int32 lanes per
// instruction), the instruction the AVX-512 quantized kernels use.
#include "kernels/cpu/machine_peaks.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)

#include <immintrin.h>

// GCC 12's AVX-512 headers start some results from _mm512_undefined_*(), which -Wuninitialized
// reports once the intrinsics are inlined; those values are always fully overwritten.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace kernels {

double avx512_fma_peak_loop(long iterations) {
  const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(static_cast<float>(i));
  for (long it = 0; it < iterations; ++it) {
    for (auto& v : a) v = _mm512_fmadd_ps(v, m, c);
    __asm__ volatile("" : "+v"(a[0]), "+v"(a[1]), "+v"(a[2]), "+v"(a[3]), "+v"(a[4]), "+v"(a[5]));
  }
  __m512 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, a[i]);
  volatile float sink = _mm512_reduce_add_ps(s);
  (void)sink;
  return static_cast<double>(iterations) * 12 * 16;
}

double avx512_int8_dot_peak_loop(long iterations) {
  const __m512i u = _mm512_set1_epi8(3), s = _mm512_set1_epi8(-2);
  __m512i a[8];
  for (auto& v : a) v = _mm512_setzero_si512();
  __m512i x0 = u, x1 = _mm512_add_epi8(u, u);
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < 8; i += 2) {
      a[i] = _mm512_dpbusd_epi32(a[i], x0, s);
      a[i + 1] = _mm512_dpbusd_epi32(a[i + 1], x1, s);
    }
    // The inputs stay the same, but the compiler must not hoist the products out of the loop.
    __asm__ volatile("" : "+v"(x0), "+v"(x1));
  }
  __m512i t = a[0];
  for (int i = 1; i < 8; ++i) t = _mm512_add_epi32(t, a[i]);
  volatile int sink = _mm512_reduce_add_epi32(t);
  (void)sink;
  return static_cast<double>(iterations) * 8 * 64;
}

}  // namespace kernels

#else

namespace kernels {

double avx512_fma_peak_loop(long) {
  return 0;
}
double avx512_int8_dot_peak_loop(long) {
  return 0;
}

}  // namespace kernels

#endif
