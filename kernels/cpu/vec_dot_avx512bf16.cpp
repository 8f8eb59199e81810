// BF16 weights against BF16 activation rows on AVX512_BF16's dpbf16ps: each instruction multiplies
// 32 pairs of BF16 values exactly and adds each lane's two products into its F32 accumulator, the
// work of two widening loads and an FMA per 16 values in the plain AVX-512 loop. Denormal inputs
// and results count as zero (the instruction's rule), which the BF16 activations of a model never
// reach. A row's dot is the same code whatever the number of rows sharing the call (the weight
// loads are shared, each row keeps its own two accumulators), so batches stay bit for bit equal
// to single rows.
#include "kernels/cpu/vec_dot_simd.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512BF16__)

#include <immintrin.h>

// GCC 12's AVX-512 headers start some results from _mm512_undefined_*(), which -Wuninitialized
// reports once the intrinsics are inlined; those values are always fully overwritten.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace kernels {

namespace {

inline __m512bh load_bf16x32(const std::byte* p) {
  return reinterpret_cast<__m512bh>(_mm512_loadu_si512(p));
}

// The last n % 32 values, the lanes past the row zero (adding nothing).
inline __m512bh load_bf16_tail(const std::byte* p, int64_t count) {
  const __mmask32 mask = _cvtu32_mask32((1u << count) - 1u);
  return reinterpret_cast<__m512bh>(_mm512_maskz_loadu_epi16(mask, p));
}

// One weight row of n BF16 values against kRows activation rows: 64 values per step, in two
// accumulators per row (even and odd 32-value chunks: two dependency chains).
template <int kRows>
void dot_rows_bf16_n(const std::byte* w, const DotRows& x, int64_t n, float* out, int64_t out_stride) {
  __m512 even[kRows], odd[kRows];
  for (int r = 0; r < kRows; ++r) even[r] = odd[r] = _mm512_setzero_ps();
  auto xrow = [&](int r, int64_t i) { return x.data + static_cast<size_t>(r) * x.stride + 2 * i; };
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512bh w0 = load_bf16x32(w + 2 * i), w1 = load_bf16x32(w + 2 * i + 64);
    for (int r = 0; r < kRows; ++r) {
      even[r] = _mm512_dpbf16_ps(even[r], w0, load_bf16x32(xrow(r, i)));
      odd[r] = _mm512_dpbf16_ps(odd[r], w1, load_bf16x32(xrow(r, i + 32)));
    }
  }
  if (i + 32 <= n) {
    const __m512bh w0 = load_bf16x32(w + 2 * i);
    for (int r = 0; r < kRows; ++r) even[r] = _mm512_dpbf16_ps(even[r], w0, load_bf16x32(xrow(r, i)));
    i += 32;
  }
  if (i < n) {
    const __m512bh w0 = load_bf16_tail(w + 2 * i, n - i);
    for (int r = 0; r < kRows; ++r) odd[r] = _mm512_dpbf16_ps(odd[r], w0, load_bf16_tail(xrow(r, i), n - i));
  }
  for (int r = 0; r < kRows; ++r) out[r * out_stride] = _mm512_reduce_add_ps(_mm512_add_ps(even[r], odd[r]));
}

void dot_rows_bf16(const std::byte* w, const DotRows& x, int num_x, int64_t n, float* out,
                   int64_t out_stride) {
  static_assert(kMaxDotRows == 4);
  switch (num_x) {
    case 1:
      return dot_rows_bf16_n<1>(w, x, n, out, out_stride);
    case 2:
      return dot_rows_bf16_n<2>(w, x, n, out, out_stride);
    case 3:
      return dot_rows_bf16_n<3>(w, x, n, out, out_stride);
    default:
      return dot_rows_bf16_n<4>(w, x, n, out, out_stride);
  }
}

float dot_bf16(const std::byte* w, const std::byte* x, int64_t n) {
  float out;
  dot_rows_bf16_n<1>(w, DotRows{x, 0, nullptr, 0}, n, &out, 0);
  return out;
}

}  // namespace

VecDotFn avx512bf16_vec_dot(GgmlType type) {
  return type == GgmlType::BF16 ? dot_bf16 : nullptr;
}

VecDotRowsFn avx512bf16_vec_dot_rows(GgmlType type) {
  return type == GgmlType::BF16 ? dot_rows_bf16 : nullptr;
}

}  // namespace kernels

#else

namespace kernels {

VecDotFn avx512bf16_vec_dot(GgmlType) {
  return nullptr;
}
VecDotRowsFn avx512bf16_vec_dot_rows(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
