// The AVX-512 matmul over R8-repacked Q8_0 / Q4_0 / Q5_0 weights (matmul_r8.h) and Q8_0
// activation rows, shared by the VNNI kernel (matmul_r8_avx512.cpp) and the plain AVX-512BW one
// (matmul_r8_avx512bw.cpp): each includes it with its own target flags, and __AVX512VNNI__ picks
// the integer dot. One 512-bit register holds two of a block's 32-byte vectors (t and a partner
// t'), so its 16 int32 lanes are the group's 8 rows twice; the activation values of t and t' are
// permuted onto the matching halves, and four byte products are summed per int32 lane:
//   Q4_0 / Q5_0 (partner t + 4, the same packed bytes' high nibbles): the codes are unsigned
//     already: dot(codes, x), minus 8 / 16 times the block's activation sum;
//   Q8_0 (partner t + 1, the next 32 bytes), stored as unsigned codes w + 128: with VNNI as
//     Q4_0, dot(codes, x) minus 128 times the block's activation sum; without VNNI the codes'
//     sign bits flipped back: vpmaddubsw(|w|, x with w's sign), which cannot saturate (the
//     codes' pair sums could).
// The halves are added in int32 (exact), so lane i holds row i's block sum, and then exactly as
// the AVX2 kernel: acc += float(sum) * (d_w * d_x) per block, in order. Every one of these kernels
// gives the same bits, whatever else shares the call (batch invariance).
#pragma once

#include <immintrin.h>

// GCC 12's AVX-512 headers start some results from _mm512_undefined_*(), which -Wuninitialized
// reports once the intrinsics are inlined; those values are always fully overwritten.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <type_traits>

#include "kernels/cpu/matmul_r8.h"
#include "kernels/cpu/matmul_r8_loop.h"
#include "kernels/cpu/matmul_r8_simd.h"

namespace kernels {

namespace {

using namespace r8simd;

#if defined(__AVX512VNNI__)
constexpr bool kVnni = true;
#else
constexpr bool kVnni = false;
#endif

// The same for signed a (Q8_0 activation values, -127..127) by signed w without VNNI:
// vpmaddubsw(|w|, a with w's sign), as the AVX2 kernel does; a pair is at most 2 * 128 * 127.
inline __m512i dot_s8s8(__m512i acc, __m512i a, __m512i w) {
  const __m512i signed_a = _mm512_mask_sub_epi8(a, _mm512_movepi8_mask(w), _mm512_setzero_si512(), a);
  return dot_u8s8(acc, _mm512_abs_epi8(w), signed_a);
}

constexpr __mmask32 kHighHalf16 = 0xFFFF0000u;  // the 16-bit lanes of the upper 256 bits

inline __m512i both_halves(const void* p) {
  return _mm512_broadcast_i64x4(load256(p));
}

// Software prefetch this far ahead in the group stream (bytes): on a Zen 5, Q8_0 decode ran at
// 54 tok/s without, 55 at 1 KiB (the AVX2 kernel's distance), 57 at 2 KiB, 55 at 4 KiB.
constexpr int kPrefetch = 2048;

template <typename Packed>
constexpr bool kIsQ8 = std::is_same_v<Packed, BlockQ8_0x8>;

// The vectors (t, t') that register p holds.
template <typename Packed>
constexpr int pair_first(int p) {
  return kIsQ8<Packed> ? 2 * p : p;
}
template <typename Packed>
constexpr int pair_second(int p) {
  return kIsQ8<Packed> ? 2 * p + 1 : p + 4;
}

// The permutation that puts activation values 4t .. 4t + 3 in every lane of the lower half and
// 4t' .. 4t' + 3 in every lane of the upper half (32-bit lanes of a 32-byte activation block).
template <typename Packed>
inline __m512i pair_index(int p) {
  const __m512i first = _mm512_set1_epi32(pair_first<Packed>(p));
  return _mm512_mask_mov_epi32(first, 0xFF00, _mm512_set1_epi32(pair_second<Packed>(p)));
}

// The four registers of block b's byte codes: unsigned (Q8_0 without VNNI: the signed values).
inline void block_codes(const BlockQ8_0x8& b, __m512i* v) {
  const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int p = 0; p < 4; ++p) {
    v[p] = _mm512_loadu_si512(b.qs[2 * p]);
    if constexpr (!kVnni) v[p] = _mm512_xor_si512(v[p], sign);
  }
}

inline void block_codes(const BlockQ4_0x8& b, __m512i* v) {
  const __m512i low4 = _mm512_set1_epi8(0xF);
  for (int t = 0; t < 4; ++t) {
    const __m512i q = both_halves(b.qs[t]);
    v[t] = _mm512_and_si512(_mm512_mask_srli_epi16(q, kHighHalf16, q, 4), low4);
  }
}

// Q5_0 vector pair (t, t + 4): the nibbles, and the fifth bits (bit t, resp. t + 4, of each qh
// byte) moved to bit 4. The 16-bit shifts move no bit that the 0x10 mask keeps across a byte.
template <int t>
inline __m512i q5_codes(const BlockQ5_0x8& b, __m512i qh) {
  const __m512i low4 = _mm512_set1_epi8(0xF), bit4 = _mm512_set1_epi8(0x10);
  const __m512i q = both_halves(b.qs[t]);
  const __m512i nibbles = _mm512_and_si512(_mm512_mask_srli_epi16(q, kHighHalf16, q, 4), low4);
  const __m512i fifth = _mm512_mask_srli_epi16(_mm512_slli_epi16(qh, 4 - t), kHighHalf16, qh, t);
  return _mm512_or_si512(nibbles, _mm512_and_si512(fifth, bit4));
}

inline void block_codes(const BlockQ5_0x8& b, __m512i* v) {
  const __m512i qh = both_halves(b.qh);
  v[0] = q5_codes<0>(b, qh);
  v[1] = q5_codes<1>(b, qh);
  v[2] = q5_codes<2>(b, qh);
  v[3] = q5_codes<3>(b, qh);
}

// The two halves' int32 lanes added: row i's exact block sum in lane i.
inline __m256i fold(__m512i halves) {
  return _mm256_add_epi32(_mm512_castsi512_si256(halves), _mm512_extracti64x4_epi64(halves, 1));
}

// One group (8 weight rows) against activation rows j0 .. j0 + C - 1; writes rows r .. r + num_w - 1.
template <typename Packed, int C>
void group_tile(const Packed* g, const R8Rows& x, int64_t j0, int num_w, float* y, int64_t y_stride) {
  constexpr bool signed_dot = kIsQ8<Packed> && !kVnni;  // else unsigned codes less offset * sum(x)
  constexpr int32_t offset = kIsQ8<Packed> ? 128 : std::is_same_v<Packed, BlockQ4_0x8> ? 8 : 16;
  const int64_t nb = x.blocks;
  const __m512i idx[4] = {pair_index<Packed>(0), pair_index<Packed>(1), pair_index<Packed>(2),
                          pair_index<Packed>(3)};
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
    __m512i v[4];
    block_codes(g[k], v);
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(g[k].d)));
    for (int c = 0; c < C; ++c) {
      const __m512i xz = _mm512_zextsi256_si512(load256(xr[c][k].qs));
      __m512i halves = _mm512_setzero_si512();
      for (int p = 0; p < 4; ++p) {
        const __m512i a = _mm512_permutexvar_epi32(idx[p], xz);
        halves = signed_dot ? dot_s8s8(halves, a, v[p]) : dot_u8s8(halves, v[p], a);
      }
      const __m256i sum =
          signed_dot ? fold(halves) : _mm256_sub_epi32(fold(halves), _mm256_set1_epi32(offset * xsum[c][k]));
      acc[c] =
          _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_mul_ps(dw, _mm256_broadcast_ss(xs[c] + k)), acc[c]);
    }
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

// This build's kernel for `type`, or nullptr.
inline R8MatmulFn r8_kernel(GgmlType type) {
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

}  // namespace

}  // namespace kernels
