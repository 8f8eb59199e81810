// CPU matmul: activations converted once to the weight's dot type, then weight rows split into
// tasks over the thread pool; inside a task, each weight row meets a tile of activation rows while
// it is hot in L1, so the weights stream from memory once per call whatever the batch size. A
// group of weights sharing one input (q/k/v, gate/up) runs as one pass over the pool. The kernels
// are chosen per weight type and SIMD level (choose_kernels, from measurements): repacked
// Q8_0 / Q4_0 / Q5_0 / Q4_K / Q6_K weights take the R8 kernels (matmul_r8.h) on AVX2 and AVX-512;
// on AVX2 the other quantized and BF16 weights go through the register-blocked tiles of
// matmul_tiles.h over activations widened once per call, on AVX-512 through its multi-row dot
// kernels. Every kernel repeats, per (weight row, activation row) pair, exactly the arithmetic of
// what a one-row matmul runs, so results stay batch-invariant.
#include <algorithm>
#include <cassert>
#include <limits>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/matmul_r8.h"
#include "kernels/cpu/matmul_tiles.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/dot_activation.h"
#include "kernels/quant/dot_blocks.h"
#include "kernels/thread_pool.h"

namespace kernels {

namespace {

constexpr int64_t kMaxRowsPerTask = 64;       // weight rows per task of a batch (upper bound)
constexpr int64_t kTasksPerThread = 8;        // tasks per thread of a batch (at least)
constexpr int64_t kDecodeTasksPerThread = 4;  // tasks per thread of one activation row
constexpr int64_t kActivationTile = 32;       // activation rows that share one pass over a weight row
constexpr size_t kMaxTargets = 4;             // weights in one grouped matmul

// Converted activations and their block scales, reused across calls on a thread (one per dot
// type in a group).
struct Scratch {
  std::vector<std::byte> rows;
  std::vector<float> scales;
  std::vector<int16_t> wide;     // the rows widened to int16 for the tile kernels
  std::vector<float> wide_f32;   // F16 / BF16 rows widened to F32 for the half tiles
  std::vector<float> r8_scales;  // Q8_0 block scales as floats, for the R8 kernels
  std::vector<int32_t> r8_sums;  // Q8_0 block sums, for the R8 kernels (their codes' offsets)
};

Scratch& activation_scratch(size_t i) {
  thread_local Scratch scratch[kMaxTargets];
  return scratch[i];
}

// The input x converted to one dot type, as the kernels read it.
struct PreparedInput {
  GgmlType type = GgmlType::F32;
  DotRows rows;       // rows of dot-type blocks (+ float block scales for Q8_0)
  bool wide = false;  // also widened (Q8_0 only), for a tile kernel
  WideRows wide_rows;
  int16_t* wide_q = nullptr;  // wide_rows' buffers, written by the conversion
  float* wide_scales = nullptr;
  bool f32 = false;           // also widened to F32 (F16 / BF16 only), for a half tile kernel
  float* wide_f32 = nullptr;  // those rows
  bool r8 = false;            // block scales and sums for an R8 kernel (Q8_0 only)
  R8Rows r8_rows;
  float* r8_scales = nullptr;  // r8_rows' buffers, written by the conversion
  int32_t* r8_sum_out = nullptr;
};

// How one target's weight rows are split into tasks, and the kernels that do them.
struct TargetPlan {
  VecDotFn dot = nullptr;
  VecDotRowsFn dot_rows = nullptr;
  TileMatmulFn tiles = nullptr;           // when set, used instead of dot / dot_rows
  KTileMatmulFn k_tiles = nullptr;        // likewise, for K-quants
  HalfTileMatmulFn half_tiles = nullptr;  // likewise, for F16 / BF16 (batches only)
  R8MatmulFn r8 = nullptr;                // for repacked weights (the only kernel that reads them)
  R8KMatmulFn r8k = nullptr;              // likewise, for repacked K-quants
  const PreparedInput* input = nullptr;
  int64_t rows_per_task = 1;
  int64_t first_task = 0;  // index of this target's first task in the group
};

// Rows [r0, r1) of w times every activation row, written to y ([n, w.rows]).
void run_rows(const MatrixView& w, const TargetPlan& plan, int64_t n, int64_t r0, int64_t r1, float* y) {
  if (plan.r8 != nullptr) {
    // Activation rows in chunks that stay in L2 (about 192 KiB) while the task's weight groups
    // pass over them, four rows at a time.
    const auto row_bytes = static_cast<int64_t>(plan.input->r8_rows.q8_stride);
    const int64_t chunk = std::clamp<int64_t>((192 << 10) / std::max<int64_t>(row_bytes, 1) / 4 * 4, 4, 64);
    for (int64_t j0 = 0; j0 < n; j0 += chunk)
      plan.r8(w, r0, r1, plan.input->r8_rows, j0, std::min(n, j0 + chunk), y, w.rows);
    return;
  }
  if (plan.r8k != nullptr) {  // likewise, over Q8_K rows
    const auto row_bytes = static_cast<int64_t>(plan.input->rows.stride);
    const int64_t chunk = std::clamp<int64_t>((192 << 10) / std::max<int64_t>(row_bytes, 1) / 4 * 4, 4, 64);
    for (int64_t j0 = 0; j0 < n; j0 += chunk)
      plan.r8k(w, r0, r1, plan.input->rows, j0, std::min(n, j0 + chunk), y, w.rows);
    return;
  }
  if (plan.tiles != nullptr) {
    // Activation rows in chunks that stay in L2 (about 192 KiB of widened values) while the
    // task's weight rows pass over them four at a time.
    const int64_t row_bytes = plan.input->wide_rows.blocks * kQK8_0 * 2;
    const int64_t chunk = std::clamp<int64_t>((192 << 10) / std::max<int64_t>(row_bytes, 1) / 4 * 4, 4, 64);
    for (int64_t j0 = 0; j0 < n; j0 += chunk)
      plan.tiles(w, r0, r1, plan.input->wide_rows, j0, std::min(n, j0 + chunk), y, w.rows);
    return;
  }
  const DotRows& x = plan.input->rows;
  if (plan.half_tiles != nullptr) {
    // F32 activation rows in chunks that stay in L1 (about 16 KiB) while the task's weight rows
    // pass over them.
    const int64_t chunk = std::clamp<int64_t>((16 << 10) / (w.cols * 4) / 2 * 2, 2, kActivationTile);
    for (int64_t j0 = 0; j0 < n; j0 += chunk)
      plan.half_tiles(w, r0, r1, plan.input->wide_f32, w.cols, j0, std::min(n, j0 + chunk), y, w.rows);
    return;
  }
  if (plan.k_tiles != nullptr) {
    for (int64_t j0 = 0; j0 < n; j0 += kActivationTile)
      plan.k_tiles(w, r0, r1, x, j0, std::min(n, j0 + kActivationTile), y, w.rows);
    return;
  }
  for (int64_t j0 = 0; j0 < n; j0 += kActivationTile) {
    const int64_t j1 = std::min(n, j0 + kActivationTile);
    for (int64_t r = r0; r < r1; ++r) {
      const std::byte* wr = w.row(r);
      int64_t j = j0;
      if (plan.dot_rows != nullptr)
        for (; j < j1; j += kMaxDotRows) {
          const DotRows part{x.data + j * x.stride, x.stride,
                             x.scales ? x.scales + j * x.scales_stride : nullptr, x.scales_stride};
          plan.dot_rows(wr, part, static_cast<int>(std::min<int64_t>(kMaxDotRows, j1 - j)), w.cols,
                        y + j * w.rows + r, w.rows);
        }
      for (; j < j1; ++j) y[j * w.rows + r] = plan.dot(wr, x.data + j * x.stride, w.cols);
    }
  }
}

// Whether the AVX2 tile kernels serve weights of `type` at `level` (else the dot kernels of that
// level do).
bool tiles_at(SimdLevel level, GgmlType type) {
  if (level == SimdLevel::Avx2) return true;
  // Q8_0 / Q4_0 / Q5_0 (matrices left in ggml's layout, ARENA_NO_REPACK=1): the tiles compute
  // what the R8 kernels compute, bit for bit, on every level.
  if (level == SimdLevel::Avx512 &&
      (type == GgmlType::Q8_0 || type == GgmlType::Q4_0 || type == GgmlType::Q5_0))
    return true;
  // K-quants and BF16: the AVX-512 dot kernels measured faster on batches (Zen 5: Q4_K 205 vs
  // 153 GFLOP/s, Q6_K 181 vs 150, BF16 116 vs 90; docs/benchmarks.md).
  return false;
}

// The kernels for weights of `type` (in ggml's layout) times n activation rows at `level`.
void choose_kernels(GgmlType type, int64_t n, SimdLevel level, TargetPlan& plan) {
  const GgmlType xt = dot_type(type);
  plan.dot = vec_dot_for(type, level);
  plan.dot_rows = n > 1 ? vec_dot_rows_for(type, level) : nullptr;
  if (level == SimdLevel::Scalar) return;
  if (xt == GgmlType::Q8_0 && tiles_at(level, type)) plan.tiles = avx2_tile_matmul(type);
  if (xt == GgmlType::Q8_K && tiles_at(level, type)) plan.k_tiles = avx2_k_tile_matmul(type);
  // BF16: one row takes the single-row kernel, whose arithmetic the half tiles repeat. (F16
  // keeps the per-pair single-row kernel: on a Zen 3 its tile measured 0.9x of it, BF16 1.6x.)
  if (n > 1 && xt == GgmlType::BF16 && tiles_at(level, type)) plan.half_tiles = avx2_half_tile_matmul(type);
}

// The kernels of every target and the dot-type inputs they share (inputs[0, *num_inputs)).
void plan_targets(std::span<const MatmulTarget> targets, int64_t n, SimdLevel level, TargetPlan* plans,
                  PreparedInput* inputs, size_t* num_inputs) {
  for (size_t t = 0; t < targets.size(); ++t) {
    const MatrixView& w = targets[t].w;
    const GgmlType xt = dot_type(w.type);
    size_t i = 0;
    while (i < *num_inputs && inputs[i].type != xt) ++i;
    if (i == *num_inputs) inputs[(*num_inputs)++].type = xt;
    plans[t].input = &inputs[i];
    if (w.interleave != 0 && xt == GgmlType::Q8_K) {  // repacked K-quants
      plans[t].r8k = r8k_matmul_for(w.type, level);
      assert(plans[t].r8k != nullptr);
      continue;
    }
    if (w.interleave != 0) {  // repacked by repack_for_matmul: only an R8 kernel reads it
      plans[t].r8 = r8_matmul_for(w.type, level);
      assert(plans[t].r8 != nullptr && xt == GgmlType::Q8_0);
      inputs[i].r8 = true;
      continue;
    }
    choose_kernels(w.type, n, level, plans[t]);
    if (plans[t].tiles != nullptr) inputs[i].wide = true;
    if (plans[t].half_tiles != nullptr) inputs[i].f32 = true;
    assert(plans[t].dot != nullptr);
  }
}

// Points input `i` at x (F32) or at this thread's scratch for its n converted rows, with the
// side arrays its kernels read (widened rows, F32 copies, R8 scales and sums); returns where the
// converted rows go (null for F32).
std::byte* prepare_input(PreparedInput& in, size_t i, std::span<const float> x, int64_t n, int64_t cols) {
  in.rows.stride = row_bytes(in.type, cols);
  in.rows.data = reinterpret_cast<const std::byte*>(x.data());
  if (in.type == GgmlType::F32) return nullptr;
  Scratch& scratch = activation_scratch(i);
  if (scratch.rows.size() < static_cast<size_t>(n) * in.rows.stride)
    scratch.rows.resize(static_cast<size_t>(n) * in.rows.stride);
  in.rows.data = scratch.rows.data();
  const int64_t nb = cols / kQK8_0;
  if (in.wide) {
    scratch.wide.resize(static_cast<size_t>(n * cols));
    scratch.scales.resize(static_cast<size_t>(n * nb));
    in.wide_q = scratch.wide.data();
    in.wide_scales = scratch.scales.data();
    in.wide_rows = WideRows{in.wide_q, in.wide_scales, nb, in.rows.data, in.rows.stride};
  }
  if (in.f32) {
    scratch.wide_f32.resize(static_cast<size_t>(n * cols));
    in.wide_f32 = scratch.wide_f32.data();
  }
  if (in.r8) {
    scratch.r8_scales.resize(static_cast<size_t>(n * nb));
    in.r8_scales = scratch.r8_scales.data();
    scratch.r8_sums.resize(static_cast<size_t>(n * nb));
    in.r8_sum_out = scratch.r8_sums.data();
    in.r8_rows = R8Rows{in.rows.data, in.rows.stride, in.r8_scales, in.r8_sum_out, nb};
  }
  return scratch.rows.data();
}

// Converts activation row r of x into input `in` (at `row`), with its side arrays.
void convert_input_row(const PreparedInput& in, SimdLevel level, const float* x, int64_t r, int64_t cols,
                       std::byte* row) {
  convert_activation_row(in.type, level, x + r * cols, row, cols);
  if (in.r8) {
    const int64_t nb = cols / kQK8_0;
    const auto* blocks = reinterpret_cast<const BlockQ8_0*>(row);
    for (int64_t k = 0; k < nb; ++k) {
      in.r8_scales[r * nb + k] = f16_to_f32(blocks[k].d);
      int32_t sum = 0;
      for (int v = 0; v < kQK8_0; ++v) sum += blocks[k].qs[v];
      in.r8_sum_out[r * nb + k] = sum;
    }
  }
  if (in.wide)
    widen_q8_0_row(row, in.wide_rows.blocks, in.wide_q + r * cols, in.wide_scales + r * in.wide_rows.blocks);
  if (in.f32) {  // the rounded F16 / BF16 values, exactly, as F32
    const auto* bits = reinterpret_cast<const uint16_t*>(row);
    float* out = in.wide_f32 + r * cols;
    if (in.type == GgmlType::F16)
      for (int64_t c = 0; c < cols; ++c) out[c] = f16_to_f32(bits[c]);
    else
      for (int64_t c = 0; c < cols; ++c) out[c] = bf16_to_f32(bits[c]);
  }
}

// The multi-row kernels read Q8_0 activations' block scales as floats: converted once here for
// input `i` (n rows at `converted`), unless the widening wrote them already.
void float_scales(PreparedInput& in, size_t i, const std::byte* converted, int64_t n, int64_t cols) {
  if (n == 1 || in.type != GgmlType::Q8_0) return;
  if (in.wide) {
    in.rows.scales = in.wide_rows.scales;
    in.rows.scales_stride = in.wide_rows.blocks;
    return;
  }
  const int64_t nb = cols / kQK8_0;
  auto& scales = activation_scratch(i).scales;
  scales.resize(static_cast<size_t>(n * nb));
  for (int64_t j = 0; j < n; ++j) {
    const auto* blocks = reinterpret_cast<const BlockQ8_0*>(converted + j * in.rows.stride);
    for (int64_t k = 0; k < nb; ++k) scales[static_cast<size_t>(j * nb + k)] = f16_to_f32(blocks[k].d);
  }
  in.rows.scales = scales.data();
  in.rows.scales_stride = nb;
}

// Tasks of consecutive weight rows: enough of them to balance the threads, none too large
// (a batch's activation tile stays hot over a task's rows); every target's tasks in one pass
// over the pool. One activation row (decode) only streams the weights: a few long runs per
// thread, uncapped (the output matrix alone made 2,374 tasks of 64 rows; on a Zen 5 the Q4_K
// file's decode went from 64-74 to 78-84 tok/s, Q8_0's stayed at the bandwidth bound). Sets
// each plan's rows_per_task and first_task; returns the number of tasks.
int64_t plan_tasks(std::span<const MatmulTarget> targets, int64_t n, int num_threads, TargetPlan* plans) {
  const int64_t min_tasks = (n == 1 ? kDecodeTasksPerThread : kTasksPerThread) * num_threads;
  const int64_t max_rows = n == 1 ? std::numeric_limits<int64_t>::max() : kMaxRowsPerTask;
  int64_t num_tasks = 0;
  for (size_t t = 0; t < targets.size(); ++t) {
    const int64_t rows = targets[t].w.rows;
    plans[t].rows_per_task = std::clamp<int64_t>((rows + min_tasks - 1) / min_tasks, 1, max_rows);
    if (plans[t].tiles != nullptr)
      plans[t].rows_per_task = (plans[t].rows_per_task + 3) / 4 * 4;  // whole tiles
    if (plans[t].r8 != nullptr || plans[t].r8k != nullptr)
      plans[t].rows_per_task = (plans[t].rows_per_task + kR8 - 1) / kR8 * kR8;  // whole groups
    plans[t].first_task = num_tasks;
    num_tasks += (rows + plans[t].rows_per_task - 1) / plans[t].rows_per_task;
  }
  return num_tasks;
}

}  // namespace

MatrixView matrix_view(const void* data, GgmlType type, int64_t rows, int64_t cols) {
  return MatrixView{static_cast<const std::byte*>(data), type, rows, cols, row_bytes(type, cols), 0};
}

void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y, ThreadPool& pool) {
  const MatmulTarget target{w, y};
  matmul_group(std::span(&target, 1), x, n, pool);
}

void matmul_group(std::span<const MatmulTarget> targets, std::span<const float> x, int64_t n,
                  ThreadPool& pool) {
  assert(!targets.empty() && targets.size() <= kMaxTargets);
  const int64_t cols = targets[0].w.cols;
  const SimdLevel level = vec_dot_level();
  assert(static_cast<int64_t>(x.size()) >= n * cols);
  for ([[maybe_unused]] const MatmulTarget& t : targets)
    assert(t.w.cols == cols && static_cast<int64_t>(t.y.size()) >= n * t.w.rows);

  // The input in each dot type the targets need (F32 rows are used as they are).
  PreparedInput inputs[kMaxTargets];
  size_t num_inputs = 0;
  TargetPlan plans[kMaxTargets];
  plan_targets(targets, n, level, plans, inputs, &num_inputs);
  std::byte* converted[kMaxTargets] = {};
  for (size_t i = 0; i < num_inputs; ++i) converted[i] = prepare_input(inputs[i], i, x, n, cols);
  // Convert: one task per (row, dot type).
  pool.run(n * static_cast<int64_t>(num_inputs), [&](int64_t task) {
    const auto i = static_cast<size_t>(task % static_cast<int64_t>(num_inputs));
    const int64_t r = task / static_cast<int64_t>(num_inputs);
    if (converted[i] != nullptr)
      convert_input_row(inputs[i], level, x.data(), r, cols, converted[i] + r * inputs[i].rows.stride);
  });
  for (size_t i = 0; i < num_inputs; ++i)
    if (converted[i] != nullptr) float_scales(inputs[i], i, converted[i], n, cols);

  const int64_t num_tasks = plan_tasks(targets, n, pool.num_threads(), plans);
  pool.run(num_tasks, [&](int64_t task) {
    size_t t = targets.size() - 1;
    while (plans[t].first_task > task) --t;
    const MatrixView& w = targets[t].w;
    const int64_t r0 = (task - plans[t].first_task) * plans[t].rows_per_task;
    run_rows(w, plans[t], n, r0, std::min(w.rows, r0 + plans[t].rows_per_task), targets[t].y.data());
  });
}

}  // namespace kernels
