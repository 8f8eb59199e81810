// AVX2 + FMA + F16C dot-product kernels, one per weight type; same arithmetic as the scalar
// definitions in kernels/quant/vec_dot.cpp (exact integer sums per block, then the scales), in
// a different float summation order.
//
// Integer products use _mm256_maddubs_epi16 (unsigned bytes x signed bytes -> int16 pairs):
// for signed x signed (Q8_0) the sign of one operand is moved onto the other first; for the
// K-quants the weights are unsigned nibbles and the offsets are applied with the block sums.
#include "kernels/cpu/vec_dot_simd.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"

namespace kernels {

namespace {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// F16 bits -> float in one instruction (F16C).
inline float h2f(uint16_t h) {
  return _cvtsh_ss(h);
}

inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

// Signed bytes a · b summed in pairs of 16-bit lanes then into 8 int32 lanes.
inline __m256i dot_i8(__m256i a, __m256i b) {
  const __m256i prod16 = _mm256_maddubs_epi16(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
  return _mm256_madd_epi16(prod16, _mm256_set1_epi16(1));
}

// Unsigned bytes u · signed bytes s, each 16-bit pair sum scaled by `scale16`, into 8 int32 lanes.
inline __m256i dot_u8_scaled(__m256i u, __m256i s, __m256i scale16) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), scale16);
}

float dot_f32(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = reinterpret_cast<const float*>(w);
  const auto* b = reinterpret_cast<const float*>(x);
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k)
      acc[k] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8 * k), _mm256_loadu_ps(b + i + 8 * k), acc[k]);
  for (; i + 8 <= n; i += 8) acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc[0]);
  float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

inline __m256 load_f16(const std::byte* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

inline __m256 load_bf16(const std::byte* p) {
  const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}

template <__m256 (*Load)(const std::byte*), float (*Scalar)(uint16_t)>
float dot_half(const std::byte* w, const std::byte* x, int64_t n) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k)
      acc[k] = _mm256_fmadd_ps(Load(w + 2 * (i + 8 * k)), Load(x + 2 * (i + 8 * k)), acc[k]);
  for (; i + 8 <= n; i += 8) acc[0] = _mm256_fmadd_ps(Load(w + 2 * i), Load(x + 2 * i), acc[0]);
  float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
  for (; i < n; ++i) {
    uint16_t a, b;
    std::memcpy(&a, w + 2 * i, 2);
    std::memcpy(&b, x + 2 * i, 2);
    sum += Scalar(a) * Scalar(b);
  }
  return sum;
}

// Sum over the 8 sub-blocks of min_j * (sum of the 32 activations of j), from Q8_K's block sums.
inline int k_min_sum(const uint8_t* mins, const int16_t* bsums) {
  int s = 0;
  for (int j = 0; j < 8; ++j) s += mins[j] * (bsums[2 * j] + bsums[2 * j + 1]);
  return s;
}

// Q4_K and Q5_K: 4 chunks of 64 values, low nibbles = sub-block 2c, high nibbles = 2c+1
// (Q5_K adds 16 where bit 2c / 2c+1 of qh is set).
template <bool kFifthBit>
float dot_q45_k(const std::byte* w, const std::byte* x, int64_t n) {
  using Block = std::conditional_t<kFifthBit, BlockQ5K, BlockQ4K>;
  const auto* a = reinterpret_cast<const Block*>(w);
  const auto* b = reinterpret_cast<const BlockQ8K*>(x);
  const __m256i low4 = _mm256_set1_epi8(0xF);
  const __m256i one = _mm256_set1_epi8(1);
  __m256 acc = _mm256_setzero_ps();
  float acc_min = 0;
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    uint8_t sc[8], mn[8];
    for (int j = 0; j < 8; ++j) k_scale_min(j, a[k].scales, sc[j], mn[j]);
    __m256i qh;
    if constexpr (kFifthBit) qh = load256(a[k].qh);
    __m256i sumi = _mm256_setzero_si256();
    for (int c = 0; c < 4; ++c) {
      const __m256i q = load256(a[k].qs + 32 * c);
      __m256i lo = _mm256_and_si256(q, low4);
      __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
      if constexpr (kFifthBit) {
        lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one), 4));
        hi = _mm256_or_si256(hi,
                             _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one), 4));
      }
      sumi =
          _mm256_add_epi32(sumi, dot_u8_scaled(lo, load256(b[k].qs + 64 * c), _mm256_set1_epi16(sc[2 * c])));
      sumi = _mm256_add_epi32(
          sumi, dot_u8_scaled(hi, load256(b[k].qs + 64 * c + 32), _mm256_set1_epi16(sc[2 * c + 1])));
    }
    const float d = b[k].d * h2f(a[k].d);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    acc_min += b[k].d * h2f(a[k].dmin) * static_cast<float>(k_min_sum(mn, b[k].bsums));
  }
  return hsum(acc) - acc_min;
}

float dot_q6_k(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = reinterpret_cast<const BlockQ6K*>(w);
  const auto* b = reinterpret_cast<const BlockQ8K*>(x);
  const __m256i low4 = _mm256_set1_epi8(0xF);
  const __m256i low2 = _mm256_set1_epi8(3);
  __m256 acc = _mm256_setzero_ps();
  float acc_offset = 0;
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    // The 6-bit values q are used unsigned (0..63); the -32 offset comes off as 32 * block sums.
    int offset = 0;
    for (int j = 0; j < 16; ++j) offset += a[k].scales[j] * b[k].bsums[j];
    __m256i sumi = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const __m256i ql0 = load256(a[k].ql + 64 * h);
      const __m256i ql1 = load256(a[k].ql + 64 * h + 32);
      const __m256i qh = load256(a[k].qh + 32 * h);
      // Run r (0..3) of 32 values: low / high nibbles of ql0 / ql1, bits 2r..2r+1 of qh.
      const __m256i runs_lo[4] = {_mm256_and_si256(ql0, low4), _mm256_and_si256(ql1, low4),
                                  _mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                                  _mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4)};
      for (int r = 0; r < 4; ++r) {
        const __m256i high = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * r), low2), 4);
        const __m256i q = _mm256_or_si256(runs_lo[r], high);
        // Sub-blocks of 16: scales 8h + 2r (values 0..15 of the run) and 8h + 2r + 1 (16..31).
        const int s0 = a[k].scales[8 * h + 2 * r], s1 = a[k].scales[8 * h + 2 * r + 1];
        const __m256i scale16 = _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(s1)),
                                                 _mm_set1_epi16(static_cast<int16_t>(s0)));
        sumi = _mm256_add_epi32(sumi, dot_u8_scaled(q, load256(b[k].qs + 128 * h + 32 * r), scale16));
      }
    }
    const float d = b[k].d * h2f(a[k].d);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    acc_offset += d * 32.0f * static_cast<float>(offset);
  }
  return hsum(acc) - acc_offset;
}

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
  const __m256i ones = _mm256_set1_epi16(1);
  for (int r = 0; r < kRows; ++r) {
    const auto* xb = reinterpret_cast<const BlockQ8_0*>(x.data + static_cast<size_t>(r) * x.stride) + k;
    const __m256i sum =
        _mm256_madd_epi16(_mm256_maddubs_epi16(aw, _mm256_sign_epi8(load256(xb->qs), wq)), ones);
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
  for (int r = 0; r < kRows; ++r) out[r * out_stride] = hsum(_mm256_add_ps(even[r], odd[r]));
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

// Q8_0 activations: per 32 values d = max|x| / 127, q = round-to-nearest-even(x * (127 / max|x|)),
// the same float operations as the scalar quantize_activation_row.
void quantize_row_q8_0(const float* x, std::byte* dst, int64_t n) {
  auto* y = reinterpret_cast<BlockQ8_0*>(dst);
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  for (int64_t b = 0; b < n / kQK8_0; ++b, x += kQK8_0) {
    __m256 v[4];
    for (int i = 0; i < 4; ++i) v[i] = _mm256_loadu_ps(x + 8 * i);
    __m256 m =
        _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign_bit, v[0]), _mm256_andnot_ps(sign_bit, v[1])),
                      _mm256_max_ps(_mm256_andnot_ps(sign_bit, v[2]), _mm256_andnot_ps(sign_bit, v[3])));
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const float amax = _mm_cvtss_f32(m4);
    y[b].d = f32_to_f16(amax / 127.0f);
    const __m256 id = _mm256_set1_ps(amax != 0 ? 127.0f / amax : 0.0f);
    __m256i q[4];
    for (int i = 0; i < 4; ++i) q[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], id));  // rounds to nearest even
    // Pack 4 x 8 int32 to 32 int8; the packs interleave 128-bit lanes, the permute restores order.
    const __m256i q16 = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    const __m256i ordered = _mm256_permutevar8x32_epi32(q16, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y[b].qs), ordered);
  }
}

}  // namespace

QuantizeRowFn avx2_quantize_row_q8_0() {
  return quantize_row_q8_0;
}

VecDotFn avx2_vec_dot(GgmlType type) {
  switch (type) {
    case GgmlType::F32:
      return dot_f32;
    case GgmlType::F16:
      return dot_half<load_f16, f16_to_f32>;
    case GgmlType::BF16:
      return dot_half<load_bf16, bf16_to_f32>;
    case GgmlType::Q8_0:
      return dot_q32<BlockQ8_0>;
    case GgmlType::Q4_0:
      return dot_q32<BlockQ4_0>;
    case GgmlType::Q5_0:
      return dot_q32<BlockQ5_0>;
    case GgmlType::Q4_K:
      return dot_q45_k<false>;
    case GgmlType::Q5_K:
      return dot_q45_k<true>;
    case GgmlType::Q6_K:
      return dot_q6_k;
    default:
      return nullptr;
  }
}

VecDotRowsFn avx2_vec_dot_rows(GgmlType type) {
  switch (type) {
    case GgmlType::Q8_0:
      return dot_rows_q32<BlockQ8_0>;
    case GgmlType::Q4_0:
      return dot_rows_q32<BlockQ4_0>;
    case GgmlType::Q5_0:
      return dot_rows_q32<BlockQ5_0>;
    default:
      return nullptr;
  }
}

}  // namespace kernels

#else

namespace kernels {

VecDotFn avx2_vec_dot(GgmlType) {
  return nullptr;
}
VecDotRowsFn avx2_vec_dot_rows(GgmlType) {
  return nullptr;
}

}  // namespace kernels

#endif
