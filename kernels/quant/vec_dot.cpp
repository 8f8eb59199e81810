// Scalar weight x activation dot products, one per weight type.
#include "kernels/quant/vec_dot.h"

#include <cstring>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"

namespace kernels {

namespace {

template <typename Block>
const Block* blocks(const std::byte* p) {
  return reinterpret_cast<const Block*>(p);
}

uint16_t load_u16(const std::byte* p, int64_t i) {
  uint16_t v;
  std::memcpy(&v, p + 2 * i, 2);
  return v;
}

// The 32 4-bit values of Q4_K / Q5_K sub-block j (0..7) of a super-block, as 0..15 (no high bit).
void k_nibbles(const uint8_t* qs, int j, int* out) {
  const uint8_t* q = qs + 32 * (j / 2);
  for (int l = 0; l < 32; ++l) out[l] = (j % 2 == 0) ? (q[l] & 0xF) : (q[l] >> 4);
}

}  // namespace

float vec_dot_f32(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = reinterpret_cast<const float*>(w);
  const auto* b = reinterpret_cast<const float*>(x);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return static_cast<float>(sum);
}

float vec_dot_f16(const std::byte* w, const std::byte* x, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += static_cast<double>(f16_to_f32(load_u16(w, i))) * f16_to_f32(load_u16(x, i));
  return static_cast<float>(sum);
}

float vec_dot_bf16(const std::byte* w, const std::byte* x, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += static_cast<double>(bf16_to_f32(load_u16(w, i))) * bf16_to_f32(load_u16(x, i));
  return static_cast<float>(sum);
}

float vec_dot_q8_0_q8_0(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = blocks<BlockQ8_0>(w);
  const auto* b = blocks<BlockQ8_0>(x);
  float sum = 0;
  for (int64_t k = 0; k < n / kQK8_0; ++k) {
    int sumi = 0;
    for (int i = 0; i < kQK8_0; ++i) sumi += a[k].qs[i] * b[k].qs[i];
    sum += static_cast<float>(sumi) * (f16_to_f32(a[k].d) * f16_to_f32(b[k].d));
  }
  return sum;
}

float vec_dot_q4_0_q8_0(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = blocks<BlockQ4_0>(w);
  const auto* b = blocks<BlockQ8_0>(x);
  float sum = 0;
  for (int64_t k = 0; k < n / kQK8_0; ++k) {
    int sumi = 0;
    for (int i = 0; i < kQK8_0 / 2; ++i) {
      sumi += ((a[k].qs[i] & 0xF) - 8) * b[k].qs[i];
      sumi += ((a[k].qs[i] >> 4) - 8) * b[k].qs[i + kQK8_0 / 2];
    }
    sum += static_cast<float>(sumi) * (f16_to_f32(a[k].d) * f16_to_f32(b[k].d));
  }
  return sum;
}

float vec_dot_q5_0_q8_0(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = blocks<BlockQ5_0>(w);
  const auto* b = blocks<BlockQ8_0>(x);
  float sum = 0;
  for (int64_t k = 0; k < n / kQK8_0; ++k) {
    uint32_t qh;
    std::memcpy(&qh, a[k].qh, 4);
    int sumi = 0;
    for (int i = 0; i < kQK8_0 / 2; ++i) {
      const int lo = (a[k].qs[i] & 0xF) | static_cast<int>(((qh >> i) & 1) << 4);
      const int hi = (a[k].qs[i] >> 4) | static_cast<int>(((qh >> (i + 16)) & 1) << 4);
      sumi += (lo - 16) * b[k].qs[i] + (hi - 16) * b[k].qs[i + kQK8_0 / 2];
    }
    sum += static_cast<float>(sumi) * (f16_to_f32(a[k].d) * f16_to_f32(b[k].d));
  }
  return sum;
}

float vec_dot_q4_k_q8_k(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = blocks<BlockQ4K>(w);
  const auto* b = blocks<BlockQ8K>(x);
  float sum = 0;
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    // sum_j scale_j * <q_j, x_j>  and  sum_j min_j * sum(x_j), both exact in integers.
    int sumi = 0, summ = 0;
    for (int j = 0; j < 8; ++j) {
      uint8_t sc, m;
      k_scale_min(j, a[k].scales, sc, m);
      int q[32];
      k_nibbles(a[k].qs, j, q);
      int dot = 0;
      for (int l = 0; l < 32; ++l) dot += q[l] * b[k].qs[32 * j + l];
      sumi += sc * dot;
      summ += m * (b[k].bsums[2 * j] + b[k].bsums[2 * j + 1]);
    }
    sum += b[k].d * f16_to_f32(a[k].d) * static_cast<float>(sumi) -
           b[k].d * f16_to_f32(a[k].dmin) * static_cast<float>(summ);
  }
  return sum;
}

float vec_dot_q5_k_q8_k(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = blocks<BlockQ5K>(w);
  const auto* b = blocks<BlockQ8K>(x);
  float sum = 0;
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    int sumi = 0, summ = 0;
    for (int j = 0; j < 8; ++j) {
      uint8_t sc, m;
      k_scale_min(j, a[k].scales, sc, m);
      int q[32];
      k_nibbles(a[k].qs, j, q);
      int dot = 0;
      for (int l = 0; l < 32; ++l) {
        const int high = (a[k].qh[l] >> j) & 1;  // bit j of qh[l] is the fifth bit of sub-block j
        dot += (q[l] + 16 * high) * b[k].qs[32 * j + l];
      }
      sumi += sc * dot;
      summ += m * (b[k].bsums[2 * j] + b[k].bsums[2 * j + 1]);
    }
    sum += b[k].d * f16_to_f32(a[k].d) * static_cast<float>(sumi) -
           b[k].d * f16_to_f32(a[k].dmin) * static_cast<float>(summ);
  }
  return sum;
}

float vec_dot_q6_k_q8_k(const std::byte* w, const std::byte* x, int64_t n) {
  const auto* a = blocks<BlockQ6K>(w);
  const auto* b = blocks<BlockQ8K>(x);
  float sum = 0;
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    // Rebuild the 256 6-bit values (as in dequantize_row_q6_k), then 16 scaled sub-block sums.
    int q[kQK_K];
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = a[k].ql + 64 * half;
      const uint8_t* qh = a[k].qh + 32 * half;
      int* out = q + 128 * half;
      for (int l = 0; l < 32; ++l) {
        out[l] = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        out[l + 32] = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        out[l + 64] = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        out[l + 96] = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      }
    }
    int sumi = 0;
    for (int j = 0; j < 16; ++j) {
      int dot = 0;
      for (int l = 0; l < 16; ++l) dot += q[16 * j + l] * b[k].qs[16 * j + l];
      sumi += a[k].scales[j] * dot;
    }
    sum += b[k].d * f16_to_f32(a[k].d) * static_cast<float>(sumi);
  }
  return sum;
}

VecDotFn scalar_vec_dot(GgmlType type) {
  switch (type) {
    case GgmlType::F32:
      return vec_dot_f32;
    case GgmlType::F16:
      return vec_dot_f16;
    case GgmlType::BF16:
      return vec_dot_bf16;
    case GgmlType::Q8_0:
      return vec_dot_q8_0_q8_0;
    case GgmlType::Q4_0:
      return vec_dot_q4_0_q8_0;
    case GgmlType::Q5_0:
      return vec_dot_q5_0_q8_0;
    case GgmlType::Q4_K:
      return vec_dot_q4_k_q8_k;
    case GgmlType::Q5_K:
      return vec_dot_q5_k_q8_k;
    case GgmlType::Q6_K:
      return vec_dot_q6_k_q8_k;
    default:
      return nullptr;
  }
}

}  // namespace kernels
