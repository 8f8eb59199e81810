// CPU matmul: activations converted once to the weight's dot type, then weight rows split into
// tasks over the thread pool; inside a task, each weight row meets a tile of activation rows while
// it is hot in L1, so the weights stream from memory once per call whatever the batch size.
#include <algorithm>
#include <cassert>
#include <vector>

#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/ops.h"
#include "kernels/quant/dot_activation.h"
#include "kernels/thread_pool.h"

namespace kernels {

namespace {

constexpr int64_t kMaxRowsPerTask = 64;  // weight rows per task (upper bound)
constexpr int64_t kActivationTile = 32;  // activation rows that share one pass over a weight row

// Scratch for converted activations, reused across calls on the same thread.
std::vector<std::byte>& activation_scratch() {
  thread_local std::vector<std::byte> scratch;
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
  if (xt != GgmlType::F32) {
    auto& scratch = activation_scratch();
    if (scratch.size() < static_cast<size_t>(n) * x_stride) scratch.resize(static_cast<size_t>(n) * x_stride);
    std::byte* dst = scratch.data();
    const float* src = x.data();
    const int64_t cols = w.cols;
    pool.run(n, [&](int64_t r) { quantize_activation_row(xt, src + r * cols, dst + r * x_stride, cols); });
    xq = dst;
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
            dot_rows(wr, xq + j * x_stride, x_stride,
                     static_cast<int>(std::min<int64_t>(kMaxDotRows, j1 - j)), w.cols, out + j * w.rows + r,
                     w.rows);
        for (; j < j1; ++j) out[j * w.rows + r] = dot(wr, xq + j * x_stride, w.cols);
      }
    }
  });
}

}  // namespace kernels
