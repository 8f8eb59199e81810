// Scalar dequantization, one loop per block layout (see dot_blocks.h for the layouts).
#include "kernels/quant/dequant.h"

#include <cstring>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"
#include "kernels/unreachable.h"

namespace kernels {

namespace {

template <typename Block>
const Block* blocks(const std::byte* src) {
  return reinterpret_cast<const Block*>(src);
}

}  // namespace

bool is_supported_weight_type(GgmlType type) {
  switch (type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q5_0:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
      return true;
    default:
      return false;
  }
}

void dequantize_row_f16(const std::byte* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    dst[i] = f16_to_f32(h);
  }
}

void dequantize_row_bf16(const std::byte* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t b;
    std::memcpy(&b, src + 2 * i, 2);
    dst[i] = bf16_to_f32(b);
  }
}

void dequantize_row_q8_0(const std::byte* src, float* dst, int64_t n) {
  const auto* x = blocks<BlockQ8_0>(src);
  for (int64_t b = 0; b < n / kQK8_0; ++b) {
    const float d = f16_to_f32(x[b].d);
    for (int i = 0; i < kQK8_0; ++i) *dst++ = d * static_cast<float>(x[b].qs[i]);
  }
}

void dequantize_row_q4_0(const std::byte* src, float* dst, int64_t n) {
  const auto* x = blocks<BlockQ4_0>(src);
  for (int64_t b = 0; b < n / kQK8_0; ++b) {
    const float d = f16_to_f32(x[b].d);
    for (int i = 0; i < kQK8_0 / 2; ++i) {
      dst[i] = d * static_cast<float>((x[b].qs[i] & 0xF) - 8);
      dst[i + kQK8_0 / 2] = d * static_cast<float>((x[b].qs[i] >> 4) - 8);
    }
    dst += kQK8_0;
  }
}

void dequantize_row_q5_0(const std::byte* src, float* dst, int64_t n) {
  const auto* x = blocks<BlockQ5_0>(src);
  for (int64_t b = 0; b < n / kQK8_0; ++b) {
    const float d = f16_to_f32(x[b].d);
    uint32_t qh;
    std::memcpy(&qh, x[b].qh, 4);
    for (int i = 0; i < kQK8_0 / 2; ++i) {
      const int lo = (x[b].qs[i] & 0xF) | static_cast<int>(((qh >> i) & 1) << 4);
      const int hi = (x[b].qs[i] >> 4) | static_cast<int>(((qh >> (i + 16)) & 1) << 4);
      dst[i] = d * static_cast<float>(lo - 16);
      dst[i + kQK8_0 / 2] = d * static_cast<float>(hi - 16);
    }
    dst += kQK8_0;
  }
}

void dequantize_row_q4_k(const std::byte* src, float* dst, int64_t n) {
  const auto* x = blocks<BlockQ4K>(src);
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    const float d = f16_to_f32(x[b].d);
    const float dmin = f16_to_f32(x[b].dmin);
    const uint8_t* q = x[b].qs;
    // Each 64 values: 32 low nibbles (sub-block 2c), then 32 high nibbles (sub-block 2c+1).
    for (int c = 0; c < 4; ++c) {
      uint8_t sc, m;
      k_scale_min(2 * c, x[b].scales, sc, m);
      const float d1 = d * sc, m1 = dmin * m;
      k_scale_min(2 * c + 1, x[b].scales, sc, m);
      const float d2 = d * sc, m2 = dmin * m;
      for (int l = 0; l < 32; ++l) *dst++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) *dst++ = d2 * static_cast<float>(q[l] >> 4) - m2;
      q += 32;
    }
  }
}

void dequantize_row_q5_k(const std::byte* src, float* dst, int64_t n) {
  const auto* x = blocks<BlockQ5K>(src);
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    const float d = f16_to_f32(x[b].d);
    const float dmin = f16_to_f32(x[b].dmin);
    const uint8_t* ql = x[b].qs;
    const uint8_t* qh = x[b].qh;
    // As Q4_K, plus a fifth bit: bit 2c of qh[l] for the low nibbles, bit 2c+1 for the high ones.
    for (int c = 0; c < 4; ++c) {
      uint8_t sc, m;
      k_scale_min(2 * c, x[b].scales, sc, m);
      const float d1 = d * sc, m1 = dmin * m;
      k_scale_min(2 * c + 1, x[b].scales, sc, m);
      const float d2 = d * sc, m2 = dmin * m;
      const int lo_bit = 1 << (2 * c), hi_bit = 2 << (2 * c);
      for (int l = 0; l < 32; ++l)
        *dst++ = d1 * static_cast<float>((ql[l] & 0xF) + ((qh[l] & lo_bit) ? 16 : 0)) - m1;
      for (int l = 0; l < 32; ++l)
        *dst++ = d2 * static_cast<float>((ql[l] >> 4) + ((qh[l] & hi_bit) ? 16 : 0)) - m2;
      ql += 32;
    }
  }
}

void dequantize_row_q6_k(const std::byte* src, float* dst, int64_t n) {
  const auto* x = blocks<BlockQ6K>(src);
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    const float d = f16_to_f32(x[b].d);
    const uint8_t* ql = x[b].ql;
    const uint8_t* qh = x[b].qh;
    const int8_t* sc = x[b].scales;
    // Each half of 128 values: 64 bytes of ql and 32 bytes of qh give 4 runs of 32 values.
    for (int half = 0; half < 2; ++half) {
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        dst[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
        dst[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
        dst[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
        dst[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
      }
      dst += 128;
      ql += 64;
      qh += 32;
      sc += 8;
    }
  }
}

void dequantize_row_q8_k(const std::byte* src, float* dst, int64_t n) {
  const auto* x = blocks<BlockQ8K>(src);
  for (int64_t b = 0; b < n / kQK_K; ++b)
    for (int i = 0; i < kQK_K; ++i) *dst++ = x[b].d * static_cast<float>(x[b].qs[i]);
}

void dequantize_row(GgmlType type, const std::byte* src, float* dst, int64_t n) {
  switch (type) {
    case GgmlType::F32:
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
      return;
    case GgmlType::F16:
      return dequantize_row_f16(src, dst, n);
    case GgmlType::BF16:
      return dequantize_row_bf16(src, dst, n);
    case GgmlType::Q8_0:
      return dequantize_row_q8_0(src, dst, n);
    case GgmlType::Q4_0:
      return dequantize_row_q4_0(src, dst, n);
    case GgmlType::Q5_0:
      return dequantize_row_q5_0(src, dst, n);
    case GgmlType::Q4_K:
      return dequantize_row_q4_k(src, dst, n);
    case GgmlType::Q5_K:
      return dequantize_row_q5_k(src, dst, n);
    case GgmlType::Q6_K:
      return dequantize_row_q6_k(src, dst, n);
    case GgmlType::Q8_K:
      return dequantize_row_q8_k(src, dst, n);
    default:
      ARENA_UNREACHABLE("dequantize_row: unsupported type");
  }
}

}  // namespace kernels
