// Weights repacked once at load for the AVX2 and AVX-512 matmuls ("R8"): Q8_0 / Q4_0 / Q5_0 rows
// interleaved in groups of 8, block by block, so that one 256-bit load holds 4 values of each of
// the 8 rows and an integer dot product's 8 int32 lanes are the 8 rows' sums: no horizontal
// folding, one convert and one FMA per (group, activation row, block), and every group is one
// contiguous stream (decode reads each task's weights as a single sequential run). The AVX-512
// kernel takes two such vectors per 512-bit register and adds the halves in int32, so both
// kernels compute the same bits.
//
// Layout of group g (rows 8g .. 8g + 7; rows past the matrix are zero), block k, byte q of a
// 32-byte vector t holding values 4t .. 4t + 3 of row q / 4 (byte q % 4 = value 4t + q % 4):
//   Q8_0x8: d[8] (F16), qs[8][32]: vector t = qs[t], signed values as stored.
//   Q4_0x8: d[8], qs[4][32]: vector t < 4 is the low nibbles of qs[t], vector t + 4 the high
//           ones; value = nibble - 8.
//   Q5_0x8: d[8], qh[32], qs[4][32]: as Q4_0x8, with bit t of qh[q] the fifth bit of vector t's
//           byte q; value = (nibble | fifth << 4) - 16.
// Each block is as many bytes as its 8 ggml blocks, so a repacked matrix takes the same memory
// (plus the zero rows of a short last group).
//
// Batch invariance: each (weight row, activation row) pair lives in one SIMD lane and runs the
// same operations (exact integer block sums, then acc += float(sum) * (d_w * d_x), blocks in
// order) whatever else shares the call; the tile width (1..4 activation rows) only changes how
// many lanes run side by side.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/cpu_features.h"
#include "kernels/ops.h"
#include "kernels/quant/dot_blocks.h"

namespace kernels {

inline constexpr int kR8 = 8;  // weight rows per interleaved group

struct BlockQ8_0x8 {
  uint16_t d[kR8];
  int8_t qs[kR8][32];
};
static_assert(sizeof(BlockQ8_0x8) == kR8 * sizeof(BlockQ8_0));

struct BlockQ4_0x8 {
  uint16_t d[kR8];
  uint8_t qs[4][32];
};
static_assert(sizeof(BlockQ4_0x8) == kR8 * sizeof(BlockQ4_0));

struct BlockQ5_0x8 {
  uint16_t d[kR8];
  uint8_t qh[32];
  uint8_t qs[4][32];
};
static_assert(sizeof(BlockQ5_0x8) == kR8 * sizeof(BlockQ5_0));

// Q8_0 activation rows as the R8 kernels read them: row j's blocks at q8 + j * q8_stride, their
// scales as floats at scales[j * blocks + k] and (Q4_0 / Q5_0 weights) the sums of their 32
// values at sums[j * blocks + k].
struct R8Rows {
  const std::byte* q8 = nullptr;
  size_t q8_stride = 0;
  const float* scales = nullptr;
  const int32_t* sums = nullptr;
  int64_t blocks = 0;
};

// y[j * y_stride + r] = row r of the repacked w · activation row j, for r in [r0, r1) (r0 a
// multiple of 8) and j in [j0, j1).
using R8MatmulFn = void (*)(const MatrixView& w, int64_t r0, int64_t r1, const R8Rows& x, int64_t j0,
                            int64_t j1, float* y, int64_t y_stride);

// The AVX2 kernel for repacked weights of `type`, or nullptr (not built for x86 with AVX2).
R8MatmulFn avx2_r8_matmul(GgmlType type);
// The AVX-512 (VNNI) kernel for the same layout, or nullptr.
R8MatmulFn avx512_r8_matmul(GgmlType type);

// The R8 kernel the matmul uses for `type` at `level`, or nullptr (no R8 kernel there: the
// weights stay in ggml's layout).
R8MatmulFn r8_matmul_for(GgmlType type, SimdLevel level);

// Whether `type` has an R8 layout (Q8_0, Q4_0, Q5_0), whatever the CPU.
bool has_r8_layout(GgmlType type);

// Bytes of w (ggml rows of a type with an R8 layout) repacked.
size_t r8_bytes(GgmlType type, int64_t rows, int64_t cols);

// Writes w (ggml rows) repacked into dst (r8_bytes bytes) and returns the view of dst.
MatrixView repack_r8(const MatrixView& w, std::byte* dst);

// Row r of a repacked view back in ggml's block layout (row_bytes(w.type, w.cols) bytes at dst).
void unpack_r8_row(const MatrixView& w, int64_t r, std::byte* dst);

}  // namespace kernels
