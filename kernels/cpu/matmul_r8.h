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
//   Q8_0x8: d[8] (F16), qs[8][32]: vector t = qs[t], each value + 128 (its sign bit flipped:
//           unsigned codes, as VNNI's vpdpbusd takes them; the AVX2 and plain AVX-512 kernels
//           flip it back).
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
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/dot_blocks.h"

namespace kernels {

inline constexpr int kR8 = 8;  // weight rows per interleaved group

struct BlockQ8_0x8 {
  uint16_t d[kR8];
  uint8_t qs[kR8][32];  // value + 128
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

// K-quants, one super-block of 256 values per row and group, the sub-block scales unpacked to
// one byte per (sub-block, row); vector t (0..63) of 32 bytes holds values 4t .. 4t + 3 of the
// 8 rows as above:
//   Q4_Kx8: d[8], dmin[8] (F16), scales[j][i] and mins[j][i] (6-bit, sub-block j of 32 values =
//           vectors 8j .. 8j + 7), qs[32][32]: vector t < 32 is the low nibbles of qs[t], vector
//           t + 32 the high ones; value = d * scale * q - dmin * min.
//   Q6_Kx8: d[8], scales[j][i] (int8, sub-block j of 16 values = vectors 4j .. 4j + 3),
//           ql[32][32]: vector t < 32 the low nibbles of ql[t], t + 32 the high ones; qh[16][32]:
//           bits 2s, 2s + 1 of qh[u] the top two bits of vector u + 16s; value = d * scale * (q - 32).
// Q6_Kx8 takes the bytes of its 8 ggml blocks; Q4_Kx8 32 more (the unpacked scales), 2.8%.
struct BlockQ4_Kx8 {
  uint16_t d[kR8];
  uint16_t dmin[kR8];
  uint8_t scales[8][kR8];
  uint8_t mins[8][kR8];
  uint8_t qs[32][32];
};
static_assert(sizeof(BlockQ4_Kx8) == kR8 * sizeof(BlockQ4K) + 32);

struct BlockQ6_Kx8 {
  uint16_t d[kR8];
  int8_t scales[16][kR8];
  uint8_t ql[32][32];
  uint8_t qh[16][32];
};
static_assert(sizeof(BlockQ6_Kx8) == kR8 * sizeof(BlockQ6K));

// Q8_0 activation rows as the R8 kernels read them: row j's blocks at q8 + j * q8_stride, their
// scales as floats at scales[j * blocks + k] and the sums of their 32 values at
// sums[j * blocks + k] (which the codes' offsets take back).
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

// The same for repacked K-quant weights (Q4_K, Q6_K) against Q8_K activation rows (row j's
// super-blocks at x.data + j * x.stride).
using R8KMatmulFn = void (*)(const MatrixView& w, int64_t r0, int64_t r1, const DotRows& x, int64_t j0,
                             int64_t j1, float* y, int64_t y_stride);

// The AVX2 kernel for repacked weights of `type`, or nullptr (not built for x86 with AVX2).
R8MatmulFn avx2_r8_matmul(GgmlType type);
// The AVX-512 (VNNI) kernel for the same layout, or nullptr.
R8MatmulFn avx512_r8_matmul(GgmlType type);
// The plain AVX-512 (F, BW, DQ) kernel, for CPUs without VNNI (the same bits), or nullptr.
R8MatmulFn avx512bw_r8_matmul(GgmlType type);
// The K-quant kernels (Q4_K, Q6_K), or nullptr.
R8KMatmulFn avx2_r8k_matmul(GgmlType type);
R8KMatmulFn avx512_r8k_matmul(GgmlType type);
R8KMatmulFn avx512bw_r8k_matmul(GgmlType type);  // without VNNI, the same bits

// The R8 kernel the matmul uses for `type` at `level`, or nullptr (no R8 kernel there: the
// weights stay in ggml's layout).
R8MatmulFn r8_matmul_for(GgmlType type, SimdLevel level);
R8KMatmulFn r8k_matmul_for(GgmlType type, SimdLevel level);

// Whether `type` has an R8 layout (Q8_0, Q4_0, Q5_0, Q4_K, Q6_K), whatever the CPU.
bool has_r8_layout(GgmlType type);

// Bytes of one repacked group of 8 rows of `cols` values.
size_t r8_group_bytes(GgmlType type, int64_t cols);

// Bytes of w (ggml rows of a type with an R8 layout) repacked.
size_t r8_bytes(GgmlType type, int64_t rows, int64_t cols);

// Writes w (ggml rows) repacked into dst (r8_bytes bytes) and returns the view of dst.
MatrixView repack_r8(const MatrixView& w, std::byte* dst);

// Row r of a repacked view back in ggml's block layout (row_bytes(w.type, w.cols) bytes at dst).
void unpack_r8_row(const MatrixView& w, int64_t r, std::byte* dst);

// The same for the K-quant layouts (matmul_r8_k.cpp): group g of w into dst's group g, and back.
void repack_r8k_group(const MatrixView& w, int64_t g, std::byte* dst_group);
void unpack_r8k_row(const MatrixView& w, int64_t r, std::byte* dst);

}  // namespace kernels
