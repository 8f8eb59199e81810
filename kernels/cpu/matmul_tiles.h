// Register-blocked matmul tiles on AVX2. For 32-value block weights (Q8_0, Q4_0, Q5_0): four
// weight rows meet up to four activation rows per step, so each decoded weight block serves four
// activation rows and each activation block four weight rows. Activations come widened once per
// matmul to int16 (WideRows), so a block's integer dot is two vpmaddwd and an add; the integer
// sums of four weight rows are reduced into one vector before a single convert-and-FMA. For
// Q4_K / Q6_K: each weight row's super-block is decoded once for up to four activation rows.
//
// Batch invariance: every (weight row, activation row) pair runs the same operations in its own
// SIMD lanes whatever else shares the tile (exact integer half-block sums, then per block
// acc += float(sum) * (d_w * d_x) in the same order), so a row's result never depends on the
// batch it came in, and one activation row (decode) gives what it gives inside a prompt.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/vec_dot_simd.h"

namespace kernels {

// Q8_0 activation rows widened for the tiles: row j, block k has its 32 values at
// q + (j * blocks + k) * 32 and its scale (as float) at scales[j * blocks + k].
struct WideRows {
  const int16_t* q = nullptr;
  const float* scales = nullptr;
  int64_t blocks = 0;             // blocks of 32 per row
  const std::byte* q8 = nullptr;  // the same rows as Q8_0 blocks (optional; the single-row
  size_t q8_stride = 0;           // kernels of Q4_0 / Q5_0 use them when given)
};

// y[j * y_stride + r] = w.row(r) · activation row j, for r in [r0, r1) and j in [j0, j1).
using TileMatmulFn = void (*)(const MatrixView& w, int64_t r0, int64_t r1, const WideRows& x, int64_t j0,
                              int64_t j1, float* y, int64_t y_stride);

// The AVX2 tile kernel for weights of `type` (Q8_0, Q4_0 or Q5_0), or nullptr (another type, or
// not built for x86 with AVX2).
TileMatmulFn avx2_tile_matmul(GgmlType type);

// The same over Q8_K activation rows (x.data + j * x.stride), for K-quant weights: one weight
// row's decoded super-block meets up to four activation rows.
using KTileMatmulFn = void (*)(const MatrixView& w, int64_t r0, int64_t r1, const DotRows& x, int64_t j0,
                               int64_t j1, float* y, int64_t y_stride);

// The AVX2 tile kernel for Q4_K or Q6_K weights, or nullptr.
KTileMatmulFn avx2_k_tile_matmul(GgmlType type);

// The same for F16 / BF16 weights over activation rows whose F16 (BF16) values are widened to
// F32 (row j at x + j * x_stride): each converted weight chunk meets two activation rows, with
// exactly the single-row AVX2 dot kernel's operations per pair (so only for n > 1; one row takes
// that kernel itself).
using HalfTileMatmulFn = void (*)(const MatrixView& w, int64_t r0, int64_t r1, const float* x,
                                  int64_t x_stride, int64_t j0, int64_t j1, float* y, int64_t y_stride);

// The AVX2 tile kernel for F16 or BF16 weights, or nullptr.
HalfTileMatmulFn avx2_half_tile_matmul(GgmlType type);

// Widens one row of `blocks` Q8_0 activation blocks into 32 int16 values and a float scale each.
void widen_q8_0_row(const std::byte* row, int64_t blocks, int16_t* q, float* scales);

}  // namespace kernels
