// AVX2 + FMA + F16C matmul over R8-repacked Q8_0 / Q4_0 / Q5_0 weights (see matmul_r8.h) and
// Q8_0 activation rows. Per block and activation row, the 8 vectors t of a group meet the
// activation's values 4t .. 4t + 3 broadcast to every lane, so lane i accumulates row i's exact
// integer dot:
//   Q8_0: the codes' sign bits flipped back (w), vpmaddubsw(|w|, sign(x, w)) then vpmaddwd by 1,
//   summed in int32;
//   Q4_0 / Q5_0: the unsigned codes u (0..15 / 0..31) times x with vpmaddubsw, summed in int16
//   (8 / 4 products of at most 2 * 31 * 128 fit), widened once, minus 8 / 16 times the block's
//   activation sum: the same integer as the signed values' dot.
// Then acc += float(sum) * (d_w * d_x) per lane, and one store of 8 rows per activation row.
#include "kernels/cpu/matmul_r8.h"
#include "kernels/cpu/matmul_r8_loop.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/matmul_r8_simd.h"

namespace kernels {

namespace {

using namespace r8simd;

// Values 4t .. 4t + 3 of activation block b in every 32-bit lane.
inline __m256i broadcast4(const BlockQ8_0& b, int t) {
  int32_t v;
  std::memcpy(&v, b.qs + 4 * t, 4);
  return _mm256_set1_epi32(v);
}

// Software prefetch this far ahead in the group stream (bytes); one task's groups are one
// contiguous run, which the hardware prefetcher follows too.
constexpr int kPrefetch = 1024;

// acc[c] += float(sum[c]) * (d_w * d_x(c, k)) for the C activation rows.
template <int C>
inline void scale_add(const uint16_t* d, const float* const xs[C], int64_t k, const __m256i* sum,
                      __m256* acc) {
  const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d)));
  for (int c = 0; c < C; ++c)
    acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum[c]), _mm256_mul_ps(dw, _mm256_broadcast_ss(xs[c] + k)),
                             acc[c]);
}

// The integer sums of one block for C activation rows: Q8_0.
template <int C>
inline void block_sums(const BlockQ8_0x8& b, const BlockQ8_0* const xr[C], const int32_t* const[C], int64_t k,
                       __m256i* sum) {
  const __m256i ones = _mm256_set1_epi16(1), sign = _mm256_set1_epi8(static_cast<char>(0x80));
  for (int c = 0; c < C; ++c) sum[c] = _mm256_setzero_si256();
  for (int t = 0; t < 8; ++t) {
    const __m256i wv = _mm256_xor_si256(load256(b.qs[t]), sign);
    const __m256i aw = _mm256_sign_epi8(wv, wv);
    for (int c = 0; c < C; ++c) {
      const __m256i p = _mm256_maddubs_epi16(aw, _mm256_sign_epi8(broadcast4(xr[c][k], t), wv));
      sum[c] = _mm256_add_epi32(sum[c], _mm256_madd_epi16(p, ones));
    }
  }
}

// Q4_0: codes 0..15, eight products of at most 2 * 15 * 128 per int16 lane.
template <int C>
inline void block_sums(const BlockQ4_0x8& b, const BlockQ8_0* const xr[C], const int32_t* const xsum[C],
                       int64_t k, __m256i* sum) {
  const __m256i ones = _mm256_set1_epi16(1), low4 = _mm256_set1_epi8(0xF);
  __m256i s16[C];
  for (int c = 0; c < C; ++c) s16[c] = _mm256_setzero_si256();
  for (int t = 0; t < 4; ++t) {
    const __m256i packed = load256(b.qs[t]);
    const __m256i lo = _mm256_and_si256(packed, low4);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(packed, 4), low4);
    for (int c = 0; c < C; ++c) {
      s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(lo, broadcast4(xr[c][k], t)));
      s16[c] = _mm256_add_epi16(s16[c], _mm256_maddubs_epi16(hi, broadcast4(xr[c][k], t + 4)));
    }
  }
  for (int c = 0; c < C; ++c)
    sum[c] = _mm256_sub_epi32(_mm256_madd_epi16(s16[c], ones), _mm256_set1_epi32(8 * xsum[c][k]));
}

// The fifth bits of vector t (bit t of each qh byte) at bit 4 of each byte.
template <int t>
inline __m256i fifth_bits(__m256i qh) {
  const __m256i bit4 = _mm256_set1_epi8(0x10);
  if constexpr (t < 4) return _mm256_and_si256(_mm256_slli_epi16(qh, 4 - t), bit4);
  if constexpr (t == 4) return _mm256_and_si256(qh, bit4);
  if constexpr (t > 4) return _mm256_and_si256(_mm256_srli_epi16(qh, t - 4), bit4);
}

// Q5_0: codes 0..31, four products of at most 2 * 31 * 128 per int16 lane, so two int16 sums
// (vectors 0-3 and 4-7).
template <int C, int t>
inline void q5_vector_pair(const BlockQ5_0x8& b, __m256i qh, const BlockQ8_0* const xr[C], int64_t k,
                           __m256i* lo_sum, __m256i* hi_sum) {
  const __m256i low4 = _mm256_set1_epi8(0xF);
  const __m256i packed = load256(b.qs[t]);
  const __m256i lo = _mm256_or_si256(_mm256_and_si256(packed, low4), fifth_bits<t>(qh));
  const __m256i hi =
      _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(packed, 4), low4), fifth_bits<t + 4>(qh));
  for (int c = 0; c < C; ++c) {
    lo_sum[c] = _mm256_add_epi16(lo_sum[c], _mm256_maddubs_epi16(lo, broadcast4(xr[c][k], t)));
    hi_sum[c] = _mm256_add_epi16(hi_sum[c], _mm256_maddubs_epi16(hi, broadcast4(xr[c][k], t + 4)));
  }
}

template <int C>
inline void block_sums(const BlockQ5_0x8& b, const BlockQ8_0* const xr[C], const int32_t* const xsum[C],
                       int64_t k, __m256i* sum) {
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i qh = load256(b.qh);
  __m256i lo_sum[C], hi_sum[C];
  for (int c = 0; c < C; ++c) lo_sum[c] = hi_sum[c] = _mm256_setzero_si256();
  q5_vector_pair<C, 0>(b, qh, xr, k, lo_sum, hi_sum);
  q5_vector_pair<C, 1>(b, qh, xr, k, lo_sum, hi_sum);
  q5_vector_pair<C, 2>(b, qh, xr, k, lo_sum, hi_sum);
  q5_vector_pair<C, 3>(b, qh, xr, k, lo_sum, hi_sum);
  for (int c = 0; c < C; ++c)
    sum[c] = _mm256_sub_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(lo_sum[c], ones), _mm256_madd_epi16(hi_sum[c], ones)),
        _mm256_set1_epi32(16 * xsum[c][k]));
}

// One group (8 weight rows) against activation rows j0 .. j0 + C - 1; writes rows r .. r + num_w - 1.
template <typename Packed, int C>
void group_tile(const Packed* g, const R8Rows& x, int64_t j0, int num_w, float* y, int64_t y_stride) {
  const int64_t nb = x.blocks;
  const BlockQ8_0* xr[C];
  const float* xs[C];
  const int32_t* xsum[C];
  __m256 acc[C];
  for (int c = 0; c < C; ++c) {
    xr[c] = q8_0_row(x, j0 + c);
    xs[c] = x.scales + (j0 + c) * nb;
    xsum[c] = x.sums + (j0 + c) * nb;
    acc[c] = _mm256_setzero_ps();
  }
  for (int64_t k = 0; k < nb; ++k) {
    prefetch_ahead<kPrefetch>(g + k);
    __m256i sum[C];
    block_sums<C>(g[k], xr, xsum, k, sum);
    scale_add<C>(g[k].d, xs, k, sum, acc);
  }
  for (int c = 0; c < C; ++c) store_rows(acc[c], num_w, y + (j0 + c) * y_stride);
}

template <typename Packed>
void r8_matmul(const MatrixView& w, int64_t r0, int64_t r1, const R8Rows& x, int64_t j0, int64_t j1, float* y,
               int64_t y_stride) {
  for_each_r8_tile<Packed>(w, r0, r1, j0, j1, y,
                           [&](auto c, const Packed* g, int64_t j, int num_w, float* out) {
                             group_tile<Packed, decltype(c)::value>(g, x, j, num_w, out, y_stride);
                           });
}

}  // namespace

R8MatmulFn avx2_r8_matmul(GgmlType type) {
  switch (type) {
    case GgmlType::Q8_0:
      return r8_matmul<BlockQ8_0x8>;
    case GgmlType::Q4_0:
      return r8_matmul<BlockQ4_0x8>;
    case GgmlType::Q5_0:
      return r8_matmul<BlockQ5_0x8>;
    default:
      return nullptr;
  }
}

}  // namespace kernels

#else

namespace kernels {

R8MatmulFn avx2_r8_matmul(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
