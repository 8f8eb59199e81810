// CPU matmul: activations converted once to the weight's dot type, then weight rows split into
// tasks over the thread pool; inside a task, each weight row meets a tile of activation rows while
// it is hot in L1, so the weights stream from memory once per call whatever the batch size.
#include <algorithm>
#include <cassert>
#include <vector>

#include "kernels/cpu/half.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/ops.h"
#include "kernels/quant/dot_activation.h"
#include "kernels/quant/dot_blocks.h"
#include "kernels/thread_pool.h"

namespace kernels {

namespace {

constexpr int64_t kMaxRowsPerTask = 64;  // weight rows per task (upper bound)
constexpr int64_t kActivationTile = 32;  // activation rows that share one pass over a weight row

// Scratch for converted activations and their block scales, reused across calls on a thread.
struct Scratch {
  std::vector<std::byte> rows;
  std::vector<float> scales;
};

Scratch& activation_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

}  // namespace

MatrixView matrix_view(const void* data, GgmlType type, int64_t rows, int64_t cols) {
  return MatrixView{static_cast<const std::byte*>(data), type, rows, cols, row_bytes(type, cols)};
}

void matmul(const MatrixView& w, std::span<const float> x, int64_t n, std::span<float> y, ThreadPool& pool) {
  assert(static_cast<int64_t>(x.size()) >= n * w.cols && static_cast<int64_t>(y.size()) >= n * w.rows);
  const VecDotFn dot = best_vec_dot(w.type);
  const VecDotRowsFn dot_rows = n > 1 ? vec_dot_rows_for(w.type, vec_dot_level()) : nullptr;
  assert(dot != nullptr);
  const GgmlType xt = dot_type(w.type);
  const size_t x_stride = row_bytes(xt, w.cols);

  // Activations in the dot type: [n, x_stride] bytes (F32 rows are used as they are).
  const std::byte* xq = reinterpret_cast<const std::byte*>(x.data());
  Scratch& scratch = activation_scratch();
  if (xt != GgmlType::F32) {
    if (scratch.rows.size() < static_cast<size_t>(n) * x_stride)
      scratch.rows.resize(static_cast<size_t>(n) * x_stride);
    std::byte* dst = scratch.rows.data();
    const float* src = x.data();
    const int64_t cols = w.cols;
    const SimdLevel level = vec_dot_level();
    pool.run(n,
             [&](int64_t r) { convert_activation_row(xt, level, src + r * cols, dst + r * x_stride, cols); });
    xq = dst;
  }
  // The multi-row kernels read Q8_0 activations' block scales as floats, converted once here.
  DotRows rows{xq, x_stride, nullptr, 0};
  if (dot_rows != nullptr && xt == GgmlType::Q8_0) {
    const int64_t nb = w.cols / kQK8_0;
    scratch.scales.resize(static_cast<size_t>(n * nb));
    for (int64_t j = 0; j < n; ++j) {
      const auto* blocks = reinterpret_cast<const BlockQ8_0*>(xq + j * x_stride);
      for (int64_t k = 0; k < nb; ++k)
        scratch.scales[static_cast<size_t>(j * nb + k)] = f16_to_f32(blocks[k].d);
    }
    rows.scales = scratch.scales.data();
    rows.scales_stride = nb;
  }

  // Tasks of consecutive weight rows: enough of them to balance the threads, none too large.
  const int64_t min_tasks = 8 * pool.num_threads();
  const int64_t rows_per_task = std::clamp<int64_t>((w.rows + min_tasks - 1) / min_tasks, 1, kMaxRowsPerTask);
  const int64_t num_tasks = (w.rows + rows_per_task - 1) / rows_per_task;
  float* out = y.data();
  pool.run(num_tasks, [&](int64_t task) {
    const int64_t r0 = task * rows_per_task;
    const int64_t r1 = std::min(w.rows, r0 + rows_per_task);
    for (int64_t j0 = 0; j0 < n; j0 += kActivationTile) {
      const int64_t j1 = std::min(n, j0 + kActivationTile);
      for (int64_t r = r0; r < r1; ++r) {
        const std::byte* wr = w.row(r);
        int64_t j = j0;
        if (dot_rows != nullptr)
          for (; j < j1; j += kMaxDotRows)
            dot_rows(wr,
                     DotRows{xq + j * x_stride, x_stride, rows.scales + j * rows.scales_stride,
                             rows.scales_stride},
                     static_cast<int>(std::min<int64_t>(kMaxDotRows, j1 - j)), w.cols, out + j * w.rows + r,
                     w.rows);
        for (; j < j1; ++j) out[j * w.rows + r] = dot(wr, xq + j * x_stride, w.cols);
      }
    }
  });
}

}  // namespace kernels
