// ggml's quantized block layouts (ggml-common.h) as C++ structs, shared by dequantization, the
// activation quantizers and the dot-product kernels. Halves are stored as raw F16 bits.
//
//   Q8_0 / Q4_0: 32 values per block, one F16 scale d: x = d * q (Q4_0: q = nibble - 8,
//                low nibbles are values 0..15, high nibbles values 16..31).
//   Q5_0:        as Q4_0 with a fifth bit per value in a 32-bit mask: q = (nibble | bit << 4) - 16.
//   Q4_K / Q5_K: 256 values in 8 sub-blocks of 32, each with a 6-bit scale and 6-bit min packed
//                in 12 bytes; x = d * scale_j * q - dmin * min_j (Q5_K: q has a 5th bit in qh).
//   Q6_K:        256 values in 16 sub-blocks of 16 with int8 scales; x = d * scale_j * (q - 32),
//                q = 4 low bits in ql, 2 high bits in qh.
//   Q8_K:        256 int8 values with an F32 scale and the sums of each 16 (activations only).
#pragma once

#include <cstdint>

namespace kernels {

inline constexpr int kQK8_0 = 32;  // values per Q8_0 / Q4_0 block
inline constexpr int kQK_K = 256;  // values per K-quant super-block

struct BlockQ8_0 {
  uint16_t d;
  int8_t qs[kQK8_0];
};
static_assert(sizeof(BlockQ8_0) == 34);

struct BlockQ4_0 {
  uint16_t d;
  uint8_t qs[kQK8_0 / 2];
};
static_assert(sizeof(BlockQ4_0) == 18);

struct BlockQ5_0 {
  uint16_t d;
  uint8_t qh[4];  // bit j: the fifth bit of value j
  uint8_t qs[kQK8_0 / 2];
};
static_assert(sizeof(BlockQ5_0) == 22);

struct BlockQ4K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qs[kQK_K / 2];
};
static_assert(sizeof(BlockQ4K) == 144);

struct BlockQ5K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qh[kQK_K / 8];
  uint8_t qs[kQK_K / 2];
};
static_assert(sizeof(BlockQ5K) == 176);

struct BlockQ6K {
  uint8_t ql[kQK_K / 2];
  uint8_t qh[kQK_K / 4];
  int8_t scales[kQK_K / 16];
  uint16_t d;
};
static_assert(sizeof(BlockQ6K) == 210);

struct BlockQ8K {
  float d;
  int8_t qs[kQK_K];
  int16_t bsums[kQK_K / 16];
};
static_assert(sizeof(BlockQ8K) == 292);

// Scale and min of sub-block j (0..7) from the 12 packed bytes of a Q4_K / Q5_K block: sub-blocks
// 0-3 use the low 6 bits of bytes j and j+4; sub-blocks 4-7 take 4 bits from byte j+4 and their
// top 2 bits from the high bits of bytes j-4 (scale) and j (min).
inline void k_scale_min(int j, const uint8_t* q, uint8_t& scale, uint8_t& min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    min = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

}  // namespace kernels
