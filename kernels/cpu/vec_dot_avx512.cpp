// AVX-512 (F, BW, VL, VNNI) dot-product kernels: 512-bit F32 / F16 / BF16 loops, and the integer
// kernels on VNNI's dpbusd (unsigned x signed bytes summed four at a time into int32), which does
// the work of AVX2's maddubs + madd pair without the 16-bit intermediate. Same arithmetic as the
// scalar definitions in kernels/quant/vec_dot.cpp, in a different float summation order.
#include "kernels/cpu/vec_dot_simd.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VNNI__)

#include <immintrin.h>

// GCC 12's AVX-512 headers start some results from _mm512_undefined_*(), which -Wuninitialized
// reports once the intrinsics are inlined; those values are always fully overwritten.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <bit>
#include <cstring>

#include "kernels/quant/dot_blocks.h"

namespace kernels {

namespace {

inline float h2f(uint16_t h) {
  return _cvtsh_ss(h);
}

inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Sum of the 8 int32 lanes.
inline int hsum_i32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(s);
}

// Signed bytes a · b into 8 int32 lanes: |a| (unsigned) times b with a's sign moved onto it.
inline __m256i dot_i8(__m256i a, __m256i b) {
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_abs_epi8(a), _mm256_sign_epi8(b, a));
}

float dot_f32(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = reinterpret_cast<const float*>(w);
  const auto* b = reinterpret_cast<const float*>(x);
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
    acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), acc1);
  }
  for (; i + 16 <= n; i += 16) acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
  float sum = _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

inline __m512 load_f16(const std::byte* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

inline __m512 load_bf16(const std::byte* p) {
  const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
}

inline float f16_scalar(uint16_t h) {
  return _cvtsh_ss(h);
}
inline float bf16_scalar(uint16_t h) {
  return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

template <__m512 (*Load)(const std::byte*), float (*Scalar)(uint16_t)>
float dot_half(const std::byte* w, const std::byte* x, int64_t n) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = _mm512_fmadd_ps(Load(w + 2 * i), Load(x + 2 * i), acc0);
    acc1 = _mm512_fmadd_ps(Load(w + 2 * (i + 16)), Load(x + 2 * (i + 16)), acc1);
  }
  for (; i + 16 <= n; i += 16) acc0 = _mm512_fmadd_ps(Load(w + 2 * i), Load(x + 2 * i), acc0);
  float sum = _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
  for (; i < n; ++i) {
    uint16_t a, b;
    std::memcpy(&a, w + 2 * i, 2);
    std::memcpy(&b, x + 2 * i, 2);
    sum += Scalar(a) * Scalar(b);
  }
  return sum;
}

inline int k_min_sum(const uint8_t* mins, const int16_t* bsums) {
  int s = 0;
  for (int j = 0; j < 8; ++j) s += mins[j] * (bsums[2 * j] + bsums[2 * j + 1]);
  return s;
}

// The K-quant kernels decode a weight super-block once (nibbles or 6-bit values as unsigned
// bytes, sub-block scales as int16) for all activation rows of the call; per row, each 32 values
// take one maddubs (u8 x s8 -> int16 pairs) and one dpwssd (int16 pairs x scale -> int32). As for
// Q8_0, the single-row kernel is the multi-row one with one row.

// Q4_K / Q5_K: chunk c of 64 values is sub-block 2c (low nibbles) and 2c+1 (high nibbles); Q5_K
// adds 16 where bit 2c / 2c+1 of qh is set. x = d*sc*q - dmin*m, the mins via Q8_K's block sums.
template <bool kFifthBit, int kRows>
void dot_rows_q45_k_n(const std::byte* w, const DotRows& x, int64_t n, float* out, int64_t out_stride) {
  using Block = std::conditional_t<kFifthBit, BlockQ5K, BlockQ4K>;
  const auto* a = reinterpret_cast<const Block*>(w);
  const __m256i low4 = _mm256_set1_epi8(0xF);
  const __m256i one = _mm256_set1_epi8(1);
  __m256 acc[kRows];
  float acc_min[kRows];
  for (int r = 0; r < kRows; ++r) {
    acc[r] = _mm256_setzero_ps();
    acc_min[r] = 0;
  }
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    uint8_t sc[8], mn[8];
    for (int j = 0; j < 8; ++j) k_scale_min(j, a[k].scales, sc[j], mn[j]);
    __m256i q[8], scale[8];  // sub-block j: 32 unsigned values and its scale in every int16 lane
    __m256i qh;
    if constexpr (kFifthBit) qh = load256(a[k].qh);
    for (int c = 0; c < 4; ++c) {
      const __m256i packed = load256(a[k].qs + 32 * c);
      q[2 * c] = _mm256_and_si256(packed, low4);
      q[2 * c + 1] = _mm256_and_si256(_mm256_srli_epi16(packed, 4), low4);
      if constexpr (kFifthBit) {
        q[2 * c] = _mm256_or_si256(q[2 * c],
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one), 4));
        q[2 * c + 1] = _mm256_or_si256(
            q[2 * c + 1], _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one), 4));
      }
    }
    for (int j = 0; j < 8; ++j) scale[j] = _mm256_set1_epi16(sc[j]);
    // int16 lanes 2j and 2j+1 hold min_j, to pair with the block sums of sub-block j's two halves.
    const __m256i mins =
        _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(mn)),
                                               _mm_loadl_epi64(reinterpret_cast<const __m128i*>(mn))));
    const float dw = h2f(a[k].d), dmin = h2f(a[k].dmin);
    for (int r = 0; r < kRows; ++r) {
      const auto& b = reinterpret_cast<const BlockQ8K*>(x.data + static_cast<size_t>(r) * x.stride)[k];
      // Two integer accumulators (even / odd sub-blocks) to halve the dependency chain.
      __m256i even = _mm256_setzero_si256(), odd = _mm256_setzero_si256();
      for (int j = 0; j < 8; j += 2) {
        even = _mm256_dpwssd_epi32(even, _mm256_maddubs_epi16(q[j], load256(b.qs + 32 * j)), scale[j]);
        odd = _mm256_dpwssd_epi32(odd, _mm256_maddubs_epi16(q[j + 1], load256(b.qs + 32 * j + 32)),
                                  scale[j + 1]);
      }
      const __m256i sumi = _mm256_add_epi32(even, odd);
      const int summ = hsum_i32(_mm256_madd_epi16(load256(b.bsums), mins));
      acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(b.d * dw), _mm256_cvtepi32_ps(sumi), acc[r]);
      acc_min[r] += b.d * dmin * static_cast<float>(summ);
    }
  }
  for (int r = 0; r < kRows; ++r) out[r * out_stride] = hsum256(acc[r]) - acc_min[r];
}

// Q6_K: run r (0..7) of 32 values is bits of ql (low / high nibbles of two 32-byte halves) and 2
// bits of qh; its two sub-blocks of 16 have scales 2r and 2r+1. The 6-bit values are used unsigned
// (0..63) and the -32 offset comes off as 32 * the scaled Q8_K block sums.
template <int kRows>
void dot_rows_q6_k_n(const std::byte* w, const DotRows& x, int64_t n, float* out, int64_t out_stride) {
  const auto* a = reinterpret_cast<const BlockQ6K*>(w);
  const __m256i low4 = _mm256_set1_epi8(0xF);
  const __m256i low2 = _mm256_set1_epi8(3);
  __m256 acc[kRows];
  float acc_offset[kRows];
  for (int r = 0; r < kRows; ++r) {
    acc[r] = _mm256_setzero_ps();
    acc_offset[r] = 0;
  }
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    __m256i q[8], scale[8];  // run i: 32 values 0..63, and int16 lanes 0-7 / 8-15 its two scales
    for (int h = 0; h < 2; ++h) {
      const __m256i ql0 = load256(a[k].ql + 64 * h);
      const __m256i ql1 = load256(a[k].ql + 64 * h + 32);
      const __m256i qh = load256(a[k].qh + 32 * h);
      const __m256i lows[4] = {_mm256_and_si256(ql0, low4), _mm256_and_si256(ql1, low4),
                               _mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                               _mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4)};
      for (int i = 0; i < 4; ++i) {
        const __m256i high = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * i), low2), 4);
        q[4 * h + i] = _mm256_or_si256(lows[i], high);
        scale[4 * h + i] = _mm256_set_m128i(_mm_set1_epi16(a[k].scales[8 * h + 2 * i + 1]),
                                            _mm_set1_epi16(a[k].scales[8 * h + 2 * i]));
      }
    }
    const __m256i scales16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a[k].scales)));
    const float dw = h2f(a[k].d);
    for (int r = 0; r < kRows; ++r) {
      const auto& b = reinterpret_cast<const BlockQ8K*>(x.data + static_cast<size_t>(r) * x.stride)[k];
      const int offset = hsum_i32(_mm256_madd_epi16(load256(b.bsums), scales16));  // sum_j scale_j * bsum_j
      __m256i even = _mm256_setzero_si256(), odd = _mm256_setzero_si256();
      for (int i = 0; i < 8; i += 2) {
        even = _mm256_dpwssd_epi32(even, _mm256_maddubs_epi16(q[i], load256(b.qs + 32 * i)), scale[i]);
        odd = _mm256_dpwssd_epi32(odd, _mm256_maddubs_epi16(q[i + 1], load256(b.qs + 32 * i + 32)),
                                  scale[i + 1]);
      }
      const __m256i sumi = _mm256_add_epi32(even, odd);
      const float d = b.d * dw;
      acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc[r]);
      acc_offset[r] += d * 32.0f * static_cast<float>(offset);
    }
  }
  for (int r = 0; r < kRows; ++r) out[r * out_stride] = hsum256(acc[r]) - acc_offset[r];
}

// A multi-row kernel from its per-row-count instances, and its single-row form.
template <void (*F1)(const std::byte*, const DotRows&, int64_t, float*, int64_t),
          void (*F2)(const std::byte*, const DotRows&, int64_t, float*, int64_t),
          void (*F3)(const std::byte*, const DotRows&, int64_t, float*, int64_t),
          void (*F4)(const std::byte*, const DotRows&, int64_t, float*, int64_t)>
void dot_rows(const std::byte* w, const DotRows& x, int num_x, int64_t n, float* out, int64_t out_stride) {
  static_assert(kMaxDotRows == 4);
  switch (num_x) {
    case 1:
      return F1(w, x, n, out, out_stride);
    case 2:
      return F2(w, x, n, out, out_stride);
    case 3:
      return F3(w, x, n, out, out_stride);
    default:
      return F4(w, x, n, out, out_stride);
  }
}

template <void (*F1)(const std::byte*, const DotRows&, int64_t, float*, int64_t)>
float dot_one(const std::byte* w, const std::byte* x, int64_t n) {
  float out;
  F1(w, DotRows{x, 0, nullptr, 0}, n, &out, 0);
  return out;
}

constexpr auto dot_rows_q4_k = dot_rows<dot_rows_q45_k_n<false, 1>, dot_rows_q45_k_n<false, 2>,
                                        dot_rows_q45_k_n<false, 3>, dot_rows_q45_k_n<false, 4>>;
constexpr auto dot_rows_q5_k = dot_rows<dot_rows_q45_k_n<true, 1>, dot_rows_q45_k_n<true, 2>,
                                        dot_rows_q45_k_n<true, 3>, dot_rows_q45_k_n<true, 4>>;
constexpr auto dot_rows_q6_k =
    dot_rows<dot_rows_q6_k_n<1>, dot_rows_q6_k_n<2>, dot_rows_q6_k_n<3>, dot_rows_q6_k_n<4>>;

// The 32 signed weight values of a block: Q8_0 as stored, Q4_0 nibble - 8 (low nibbles are
// values 0..15), Q5_0 (nibble | fifth bit << 4) - 16.
inline __m256i block_values(const BlockQ8_0& b) {
  return load256(b.qs);
}

inline __m256i block_values(const BlockQ4_0& b) {
  const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
  const __m256i nibbles =
      _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0xF));
  return _mm256_sub_epi8(nibbles, _mm256_set1_epi8(8));
}

inline __m256i block_values(const BlockQ5_0& b) {
  const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
  const __m256i nibbles =
      _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0xF));
  uint32_t qh;
  std::memcpy(&qh, b.qh, 4);
  // Byte i takes byte i / 8 of qh and keeps bit i % 8: 0xFF where value i has its fifth bit.
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(qh)),
      _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0x0000000000000000));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  const __m256i fifth = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
  // q - 16 as a signed byte: the nibble where the fifth bit is set, nibble | 0xF0 where not.
  return _mm256_or_si256(nibbles, _mm256_andnot_si256(fifth, _mm256_set1_epi8(-16)));
}

// Adds block k of the weight row times block k of each activation row (Q8_0) to acc[r]:
// acc += (float(int dot) * d_w) * d_x. Row scales come from `scales` when given (rows sharing a
// call), else from the blocks themselves (the same floats).
template <typename Block, int kRows>
inline void q32_block(const Block& wb, const DotRows& x, int64_t k, __m256* acc) {
  const __m256i wq = block_values(wb);
  const __m256i aw = _mm256_sign_epi8(wq, wq);
  const __m256 dw = _mm256_set1_ps(h2f(wb.d));
  for (int r = 0; r < kRows; ++r) {
    const auto* xb = reinterpret_cast<const BlockQ8_0*>(x.data + static_cast<size_t>(r) * x.stride) + k;
    const __m256i sum =
        _mm256_dpbusd_epi32(_mm256_setzero_si256(), aw, _mm256_sign_epi8(load256(xb->qs), wq));
    const float dx = x.scales ? x.scales[r * x.scales_stride + k] : h2f(xb->d);
    acc[r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(sum), dw), _mm256_set1_ps(dx), acc[r]);
  }
}

// One weight row of 32-value blocks against kRows activation rows; even and odd blocks go to
// separate accumulators (two dependency chains).
template <typename Block, int kRows>
void dot_rows_q32_n(const std::byte* w, const DotRows& x, int64_t n, float* out, int64_t out_stride) {
  const auto* a = reinterpret_cast<const Block*>(w);
  const int64_t nb = n / kQK8_0;
  __m256 even[kRows], odd[kRows];
  for (int r = 0; r < kRows; ++r) even[r] = odd[r] = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 2 <= nb; k += 2) {
    q32_block<Block, kRows>(a[k], x, k, even);
    q32_block<Block, kRows>(a[k + 1], x, k + 1, odd);
  }
  if (k < nb) q32_block<Block, kRows>(a[k], x, k, even);
  for (int r = 0; r < kRows; ++r) out[r * out_stride] = hsum256(_mm256_add_ps(even[r], odd[r]));
}

// Q8_0 / Q4_0 / Q5_0 weights against up to kMaxDotRows Q8_0 activation rows: the weight block is
// decoded (and |w| taken) once for all rows. The single-row kernel is the same code with one row,
// so a row's result never depends on how many rows share the call (a batch gives the same logits
// as one token at a time).
template <typename Block>
void dot_rows_q32(const std::byte* w, const DotRows& x, int num_x, int64_t n, float* out,
                  int64_t out_stride) {
  static_assert(kMaxDotRows == 4);
  switch (num_x) {
    case 1:
      return dot_rows_q32_n<Block, 1>(w, x, n, out, out_stride);
    case 2:
      return dot_rows_q32_n<Block, 2>(w, x, n, out, out_stride);
    case 3:
      return dot_rows_q32_n<Block, 3>(w, x, n, out, out_stride);
    default:
      return dot_rows_q32_n<Block, 4>(w, x, n, out, out_stride);
  }
}

template <typename Block>
float dot_q32(const std::byte* w, const std::byte* x, int64_t n) {
  float out;
  dot_rows_q32_n<Block, 1>(w, DotRows{x, 0, nullptr, 0}, n, &out, 0);
  return out;
}

}  // namespace

VecDotFn avx512_vec_dot(GgmlType type) {
  switch (type) {
    case GgmlType::F32:
      return dot_f32;
    case GgmlType::F16:
      return dot_half<load_f16, f16_scalar>;
    case GgmlType::BF16:
      return dot_half<load_bf16, bf16_scalar>;
    case GgmlType::Q8_0:
      return dot_q32<BlockQ8_0>;
    case GgmlType::Q4_0:
      return dot_q32<BlockQ4_0>;
    case GgmlType::Q5_0:
      return dot_q32<BlockQ5_0>;
    case GgmlType::Q4_K:
      return dot_one<dot_rows_q45_k_n<false, 1>>;
    case GgmlType::Q5_K:
      return dot_one<dot_rows_q45_k_n<true, 1>>;
    case GgmlType::Q6_K:
      return dot_one<dot_rows_q6_k_n<1>>;
    default:
      return nullptr;
  }
}

VecDotRowsFn avx512_vec_dot_rows(GgmlType type) {
  switch (type) {
    case GgmlType::Q8_0:
      return dot_rows_q32<BlockQ8_0>;
    case GgmlType::Q4_0:
      return dot_rows_q32<BlockQ4_0>;
    case GgmlType::Q5_0:
      return dot_rows_q32<BlockQ5_0>;
    case GgmlType::Q4_K:
      return dot_rows_q4_k;
    case GgmlType::Q5_K:
      return dot_rows_q5_k;
    case GgmlType::Q6_K:
      return dot_rows_q6_k;
    default:
      return nullptr;
  }
}

}  // namespace kernels

#else

namespace kernels {

VecDotFn avx512_vec_dot(GgmlType) {
  return nullptr;
}
VecDotRowsFn avx512_vec_dot_rows(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
