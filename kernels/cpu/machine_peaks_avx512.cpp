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
  // Twelve independent chains (enough to cover the FMA latency on every port), in registers.
  const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
  __m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2), a3 = _mm512_set1_ps(3),
         a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5), a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7),
         a8 = _mm512_set1_ps(8), a9 = _mm512_set1_ps(9), a10 = _mm512_set1_ps(10), a11 = _mm512_set1_ps(11);
  for (long i = 0; i < iterations; ++i) {
    a0 = _mm512_fmadd_ps(a0, m, c);
    a1 = _mm512_fmadd_ps(a1, m, c);
    a2 = _mm512_fmadd_ps(a2, m, c);
    a3 = _mm512_fmadd_ps(a3, m, c);
    a4 = _mm512_fmadd_ps(a4, m, c);
    a5 = _mm512_fmadd_ps(a5, m, c);
    a6 = _mm512_fmadd_ps(a6, m, c);
    a7 = _mm512_fmadd_ps(a7, m, c);
    a8 = _mm512_fmadd_ps(a8, m, c);
    a9 = _mm512_fmadd_ps(a9, m, c);
    a10 = _mm512_fmadd_ps(a10, m, c);
    a11 = _mm512_fmadd_ps(a11, m, c);
  }
  const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                                               _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7))),
                                 _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  volatile float sink = _mm512_reduce_add_ps(s);
  (void)sink;
  return static_cast<double>(iterations) * 12 * 16;
}

double avx512_int8_dot_peak_loop(long iterations) {
  // Eight chains of dpbusd (u8 x s8, four products into each int32 lane).
  const __m512i s = _mm512_set1_epi8(-2);
  __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  __m512i x0 = _mm512_set1_epi8(3), x1 = _mm512_set1_epi8(6);
  for (long i = 0; i < iterations; ++i) {
    a0 = _mm512_dpbusd_epi32(a0, x0, s);
    a1 = _mm512_dpbusd_epi32(a1, x1, s);
    a2 = _mm512_dpbusd_epi32(a2, x0, s);
    a3 = _mm512_dpbusd_epi32(a3, x1, s);
    a4 = _mm512_dpbusd_epi32(a4, x0, s);
    a5 = _mm512_dpbusd_epi32(a5, x1, s);
    a6 = _mm512_dpbusd_epi32(a6, x0, s);
    a7 = _mm512_dpbusd_epi32(a7, x1, s);
    // The inputs stay the same, but the compiler must not hoist the products out of the loop.
    __asm__ volatile("" : "+v"(x0), "+v"(x1));
  }
  const __m512i t = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3)),
                                     _mm512_add_epi32(_mm512_add_epi32(a4, a5), _mm512_add_epi32(a6, a7)));
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
