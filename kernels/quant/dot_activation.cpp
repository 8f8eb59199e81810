// Activation conversion for dot products (llama.cpp's quantize_row_q8_0 / q8_K conventions).
#include "kernels/quant/dot_activation.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"
#include "kernels/unreachable.h"

namespace kernels {

namespace {

void to_q8_0(const float* x, BlockQ8_0* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK8_0; ++b, x += kQK8_0) {
    float amax = 0;
    for (int i = 0; i < kQK8_0; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float d = amax / 127.0f;
    const float id = amax != 0 ? 127.0f / amax : 0.0f;
    y[b].d = f32_to_f16(d);
    for (int i = 0; i < kQK8_0; ++i) y[b].qs[i] = static_cast<int8_t>(std::nearbyint(x[i] * id));
  }
}

void to_q8_k(const float* x, BlockQ8K* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK_K; ++b, x += kQK_K) {
    float amax = 0, max = 0;
    for (int i = 0; i < kQK_K; ++i) {
      if (std::fabs(x[i]) > amax) {
        amax = std::fabs(x[i]);
        max = x[i];
      }
    }
    if (amax == 0) {
      std::memset(&y[b], 0, sizeof(BlockQ8K));
      continue;
    }
    const float iscale = -127.0f / max;
    for (int i = 0; i < kQK_K; ++i)
      y[b].qs[i] = static_cast<int8_t>(std::min(127, static_cast<int>(std::nearbyint(iscale * x[i]))));
    for (int j = 0; j < kQK_K / 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += y[b].qs[16 * j + i];
      y[b].bsums[j] = static_cast<int16_t>(sum);
    }
    y[b].d = 1.0f / iscale;
  }
}

}  // namespace

GgmlType dot_type(GgmlType weight_type) {
  switch (weight_type) {
    case GgmlType::F16:
      return GgmlType::F16;
    case GgmlType::BF16:
      return GgmlType::BF16;
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q5_0:
      return GgmlType::Q8_0;
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
      return GgmlType::Q8_K;
    default:
      return GgmlType::F32;
  }
}

void quantize_activation_row(GgmlType type, const float* x, std::byte* dst, int64_t n) {
  switch (type) {
    case GgmlType::F32:
      std::memcpy(dst, x, static_cast<size_t>(n) * sizeof(float));
      return;
    case GgmlType::F16:
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = f32_to_f16(x[i]);
        std::memcpy(dst + 2 * i, &h, 2);
      }
      return;
    case GgmlType::BF16:
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = f32_to_bf16(x[i]);
        std::memcpy(dst + 2 * i, &h, 2);
      }
      return;
    case GgmlType::Q8_0:
      return to_q8_0(x, reinterpret_cast<BlockQ8_0*>(dst), n);
    case GgmlType::Q8_K:
      return to_q8_k(x, reinterpret_cast<BlockQ8K*>(dst), n);
    default:
      ARENA_UNREACHABLE("quantize_activation_row: not a dot type");
  }
}

}  // namespace kernels
