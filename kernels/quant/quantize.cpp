// Reference quantizers, following ggml-quants.c's *_ref functions step by step (same float
// operations in the same order, same rounding), so that the bytes match ggml's exactly.
//
//   Q8_0: d = amax / 127, q = round(x / d).
//   Q5_0: d = max / -16 (max = the value of largest magnitude), 5-bit q = x / d + 16, low nibbles in
//         qs (values j and j+16 share a byte), the fifth bits in the 32-bit qh.
//   Q4_K: per 32-value sub-block a scale and a min found by make_qkx2_quants (a weighted
//         least-squares search over 21 trial scales), both quantized to 6 bits against the
//         super-block's d and dmin; x = d * sc * q - dmin * m with q in 0..15.
//   Q6_K: per 16-value sub-block a signed scale from make_qx_quants (rmse_type 1), quantized to
//         int8 against d = -max_scale / 128; q in -32..31 stored as q + 32 in 4 + 2 bits.
#include "kernels/quant/quantize.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"
#include "kernels/unreachable.h"

namespace kernels {

namespace {

constexpr int kQK32 = kQK8_0;
constexpr int kQKK = kQK_K;
constexpr float kGroupMaxEps = 1e-15f;

// Round to nearest, ties to even, for |x| < 2^22 (ggml's nearest_int: the float add puts the
// integer in the low mantissa bits).
inline int nearest_int(float x) {
  const float v = x + 12582912.f;
  int32_t i;
  std::memcpy(&i, &v, sizeof(i));
  return (i & 0x007fffff) - 0x00400000;
}

// roundf (halves away from zero) for |x| < 2^31, without the library call: the truncation t and
// the remainder x - t are exact (Sterbenz's lemma for |x| >= 1), so the comparison decides exactly.
inline int round_half_away(float x) {
  const int t = static_cast<int>(x);
  const float rest = x - static_cast<float>(t);
  return t + (rest >= 0.5f) - (rest <= -0.5f);
}

// Writes the blocks one at a time through a local copy (dst need not be aligned).
template <typename Block>
void store(std::byte* dst, int64_t index, const Block& block) {
  std::memcpy(dst + index * static_cast<int64_t>(sizeof(Block)), &block, sizeof(Block));
}

// Scale and min of 32 values quantized to 0..nmax, minimising the weighted squared error over
// nstep+1 trial scales (ggml's make_qkx2_quants with use_mad = false). Returns the scale; *the_min
// gets the (non-negative) min to subtract.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                       uint8_t* Laux, float rmin, float rdelta, int nstep) {
  float min = x[0];
  float max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    *the_min = -min;
    return 0.f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = nearest_int(iscale * (x[i] - min));
    L[i] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    float diff = scale * L[i] + min - x[i];
    diff = diff * diff;
    best_error += weights[i] * diff;
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * is + nmax) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearest_int(iscale * (x[i] - min));
      l = std::max(0, std::min(nmax, l));
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weights[i];
      sum_l += w * l;
      sum_l2 += w * l * l;
      sum_xl += w * l * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        float diff = this_scale * Laux[i] + this_min - x[i];
        diff = diff * diff;
        cur_error += weights[i] * diff;
      }
      if (cur_error < best_error) {
        for (int i = 0; i < n; ++i) L[i] = Laux[i];
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

// Signed scale for n values quantized to -nmax..nmax-1 with weights x^2, refined over 18 trial
// scales (ggml's make_qx_quants with rmse_type 1 and no importance weights). L gets q + nmax.
float make_qx_quants(int n, int nmax, const float* x, int8_t* L) {
  float max = 0;
  float amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    return 0.f;
  }
  float iscale = -nmax / max;
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    int l = nearest_int(iscale * x[i]);
    l = std::max(-nmax, std::min(nmax - 1, l));
    L[i] = static_cast<int8_t>(l + nmax);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  float scale = suml2 ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(nmax + 0.1f * is) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearest_int(iscale * x[i]);
      l = std::max(-nmax, std::min(nmax - 1, l));
      const float w = x[i] * x[i];
      sumlx += w * x[i] * l;
      suml2 += w * l * l;
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) {
        const int l = nearest_int(iscale * x[i]);
        L[i] = static_cast<int8_t>(nmax + std::max(-nmax, std::min(nmax - 1, l)));
      }
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

}  // namespace

bool can_quantize(GgmlType type) {
  switch (type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q8_0:
    case GgmlType::Q5_0:
    case GgmlType::Q4_K:
    case GgmlType::Q6_K:
      return true;
    default:
      return false;
  }
}

void quantize_row(GgmlType type, const float* src, std::byte* dst, int64_t n) {
  switch (type) {
    case GgmlType::F32:
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
      return;
    case GgmlType::F16:
      quantize_row_f16(src, dst, n);
      return;
    case GgmlType::BF16:
      quantize_row_bf16(src, dst, n);
      return;
    case GgmlType::Q8_0:
      quantize_row_q8_0(src, dst, n);
      return;
    case GgmlType::Q5_0:
      quantize_row_q5_0(src, dst, n);
      return;
    case GgmlType::Q4_K:
      quantize_row_q4_k(src, dst, n);
      return;
    case GgmlType::Q6_K:
      quantize_row_q6_k(src, dst, n);
      return;
    default:
      ARENA_UNREACHABLE("quantize_row: unsupported type");
  }
}

void quantize_row_f16(const float* src, std::byte* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t h = f32_to_f16(src[i]);
    std::memcpy(dst + 2 * i, &h, 2);
  }
}

void quantize_row_bf16(const float* src, std::byte* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t b = f32_to_bf16(src[i]);
    std::memcpy(dst + 2 * i, &b, 2);
  }
}

void quantize_row_q8_0(const float* src, std::byte* dst, int64_t n) {
  assert(n % kQK32 == 0);
  for (int64_t b = 0; b < n / kQK32; ++b) {
    const float* x = src + b * kQK32;
    float amax = 0.0f;
    for (int j = 0; j < kQK32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127;
    const float id = d ? 1.0f / d : 0.0f;
    BlockQ8_0 block;
    block.d = f32_to_f16(d);
    for (int j = 0; j < kQK32; ++j) block.qs[j] = static_cast<int8_t>(round_half_away(x[j] * id));
    store(dst, b, block);
  }
}

void quantize_row_q5_0(const float* src, std::byte* dst, int64_t n) {
  assert(n % kQK32 == 0);
  for (int64_t b = 0; b < n / kQK32; ++b) {
    const float* x = src + b * kQK32;
    float amax = 0.0f;
    float max = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    const float d = max / -16;
    const float id = d ? 1.0f / d : 0.0f;
    BlockQ5_0 block;
    block.d = f32_to_f16(d);
    uint32_t qh = 0;
    for (int j = 0; j < kQK32 / 2; ++j) {
      // x * id lies in [-16, 16], so the truncations below see 0.5 .. 32.5.
      const int q0 = std::min(31, static_cast<int>(x[j] * id + 16.5f));
      const int q1 = std::min(31, static_cast<int>(x[kQK32 / 2 + j] * id + 16.5f));
      block.qs[j] = static_cast<uint8_t>((q0 & 0x0F) | ((q1 & 0x0F) << 4));
      qh |= static_cast<uint32_t>((q0 & 0x10) >> 4) << j;
      qh |= static_cast<uint32_t>((q1 & 0x10) >> 4) << (j + kQK32 / 2);
    }
    std::memcpy(block.qh, &qh, sizeof(qh));
    store(dst, b, block);
  }
}

void quantize_row_q4_k(const float* src, std::byte* dst, int64_t n) {
  assert(n % kQKK == 0);
  uint8_t L[kQKK];
  uint8_t Laux[32];
  float weights[32];
  float mins[kQKK / 32];
  float scales[kQKK / 32];
  for (int64_t b = 0; b < n / kQKK; ++b) {
    const float* x = src + b * kQKK;
    float max_scale = 0;  // scales are never negative: the min is subtracted first
    float max_min = 0;
    for (int j = 0; j < kQKK / 32; ++j) {
      float sum_x2 = 0;
      for (int l = 0; l < 32; ++l) sum_x2 += x[32 * j + l] * x[32 * j + l];
      const float av_x = std::sqrt(sum_x2 / 32);
      for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
      scales[j] = make_qkx2_quants(32, 15, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, -1.f, 0.1f, 20);
      max_scale = std::max(max_scale, scales[j]);
      max_min = std::max(max_min, mins[j]);
    }

    BlockQ4K block{};
    const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    for (int j = 0; j < kQKK / 32; ++j) {
      // As in ggml: narrowed to uint8_t before the clamp to 63.
      const uint8_t ls = std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_scale * scales[j])));
      const uint8_t lm = std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_min * mins[j])));
      if (j < 4) {
        block.scales[j] = ls;
        block.scales[j + 4] = lm;
      } else {
        block.scales[j + 4] = static_cast<uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
        block.scales[j - 4] |= static_cast<uint8_t>((ls >> 4) << 6);
        block.scales[j] |= static_cast<uint8_t>((lm >> 4) << 6);
      }
    }
    block.d = f32_to_f16(max_scale / 63.f);
    block.dmin = f32_to_f16(max_min / 63.f);

    for (int j = 0; j < kQKK / 32; ++j) {
      uint8_t sc, m;
      if (j < 4) {
        sc = block.scales[j] & 63;
        m = block.scales[j + 4] & 63;
      } else {
        sc = static_cast<uint8_t>((block.scales[j + 4] & 0xF) | ((block.scales[j - 4] >> 6) << 4));
        m = static_cast<uint8_t>((block.scales[j + 4] >> 4) | ((block.scales[j] >> 6) << 4));
      }
      const float d = f16_to_f32(block.d) * sc;
      if (!d) continue;
      const float dm = f16_to_f32(block.dmin) * m;
      for (int i = 0; i < 32; ++i) {
        const int l = nearest_int((x[32 * j + i] + dm) / d);
        L[32 * j + i] = static_cast<uint8_t>(std::max(0, std::min(15, l)));
      }
    }

    // Each 64 values fill 32 bytes: values j..j+31 in the low nibbles, j+32..j+63 in the high.
    uint8_t* q = block.qs;
    for (int j = 0; j < kQKK; j += 64, q += 32)
      for (int l = 0; l < 32; ++l) q[l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    store(dst, b, block);
  }
}

void quantize_row_q6_k(const float* src, std::byte* dst, int64_t n) {
  assert(n % kQKK == 0);
  int8_t L[kQKK];
  float scales[kQKK / 16];
  for (int64_t b = 0; b < n / kQKK; ++b) {
    const float* x = src + b * kQKK;
    float max_scale = 0;
    float max_abs_scale = 0;
    for (int ib = 0; ib < kQKK / 16; ++ib) {
      const float scale = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib);
      scales[ib] = scale;
      const float abs_scale = std::fabs(scale);
      if (abs_scale > max_abs_scale) {
        max_abs_scale = abs_scale;
        max_scale = scale;
      }
    }

    BlockQ6K block{};
    if (max_abs_scale < kGroupMaxEps) {  // all (near) zero: an all-zero block
      store(dst, b, block);
      continue;
    }
    const float iscale = -128.f / max_scale;
    block.d = f32_to_f16(1 / iscale);
    for (int ib = 0; ib < kQKK / 16; ++ib)
      block.scales[ib] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[ib])));
    for (int j = 0; j < kQKK / 16; ++j) {
      const float d = f16_to_f32(block.d) * block.scales[j];
      if (!d) continue;
      for (int i = 0; i < 16; ++i) {
        const int l = nearest_int(x[16 * j + i] / d);
        L[16 * j + i] = static_cast<int8_t>(std::max(-32, std::min(31, l)) + 32);
      }
    }

    // Each 128 values: low nibbles in 64 bytes of ql (values l and l+64 share a byte, as do
    // l+32 and l+96), the two high bits of all four in one byte of qh.
    uint8_t* ql = block.ql;
    uint8_t* qh = block.qh;
    for (int j = 0; j < kQKK; j += 128, ql += 64, qh += 32) {
      for (int l = 0; l < 32; ++l) {
        const int q1 = L[j + l], q2 = L[j + l + 32], q3 = L[j + l + 64], q4 = L[j + l + 96];
        ql[l] = static_cast<uint8_t>((q1 & 0xF) | ((q3 & 0xF) << 4));
        ql[l + 32] = static_cast<uint8_t>((q2 & 0xF) | ((q4 & 0xF) << 4));
        qh[l] = static_cast<uint8_t>((q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6));
      }
    }
    store(dst, b, block);
  }
}

}  // namespace kernels
