// Matmul: the threaded, tiled, SIMD matmul against the reference (dequantize, double) for every
// weight type, batch sizes around the tile size, and 1 to 3 threads.
#include <catch2/catch.hpp>
#include <cmath>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/reference_ops.h"
#include "kernels/thread_pool.h"
#include "tests/kernels/random_weights.h"

using kernels::GgmlType;

TEST_CASE("Matmul matches the reference for every weight type and batch size", "[kernels]") {
  std::mt19937 rng(3);
  const int64_t cols = 512;
  const int64_t rows = 67;  // not a multiple of any task size
  for (int threads : {1, 3}) {
    kernels::ThreadPool pool(threads);
    for (GgmlType type : kernels::test::kWeightTypes) {
      const auto data = kernels::test::random_weights(type, rows, cols, rng);
      const auto w = kernels::matrix_view(data.data(), type, rows, cols);
      for (int64_t n : {1, 2, 33, 70}) {
        const auto x = kernels::test::random_floats(static_cast<size_t>(n * cols), rng);
        std::vector<float> got(static_cast<size_t>(n * rows)), want(got.size());
        kernels::matmul(w, x, n, got, pool);
        kernels::reference::matmul(w, x, n, want);
        double worst = 0, scale = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - want[i]));
          scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
        }
        INFO(kernels::traits(type).name << " n=" << n << " threads=" << threads);
        CHECK(worst <= 1e-5 * scale);
      }
    }
  }
}

TEST_CASE("Matmul handles strided weight views", "[kernels]") {
  // A view of every other row of a larger matrix.
  std::mt19937 rng(5);
  kernels::ThreadPool pool(2);
  const auto data = kernels::test::random_weights(GgmlType::Q8_0, 20, 64, rng);
  kernels::MatrixView w = kernels::matrix_view(data.data(), GgmlType::Q8_0, 10, 64);
  w.row_stride *= 2;
  const auto x = kernels::test::random_floats(64, rng);
  std::vector<float> got(10), want(10);
  kernels::matmul(w, x, 1, got, pool);
  kernels::reference::matmul(w, x, 1, want);
  for (size_t i = 0; i < 10; ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-5).margin(1e-6));
}

TEST_CASE("A grouped matmul writes what each matmul alone writes", "[kernels]") {
  std::mt19937 rng(8);
  kernels::ThreadPool pool(3);
  const int64_t cols = 256;
  const GgmlType types[] = {GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::F16, GgmlType::Q6_K};
  const int64_t rows[] = {40, 17, 9, 64};
  std::vector<std::vector<std::byte>> data;
  for (int t = 0; t < 4; ++t) data.push_back(kernels::test::random_weights(types[t], rows[t], cols, rng));
  for (int64_t n : {1, 6}) {
    const auto x = kernels::test::random_floats(static_cast<size_t>(n * cols), rng);
    std::vector<std::vector<float>> grouped(4), alone(4);
    std::vector<kernels::MatmulTarget> targets;
    for (int t = 0; t < 4; ++t) {
      grouped[static_cast<size_t>(t)].resize(static_cast<size_t>(n * rows[t]));
      alone[static_cast<size_t>(t)].resize(static_cast<size_t>(n * rows[t]));
      const auto w = kernels::matrix_view(data[static_cast<size_t>(t)].data(), types[t], rows[t], cols);
      targets.push_back({w, grouped[static_cast<size_t>(t)]});
      kernels::matmul(w, x, n, alone[static_cast<size_t>(t)], pool);
    }
    kernels::matmul_group(targets, x, n, pool);
    for (int t = 0; t < 4; ++t) CHECK(grouped[static_cast<size_t>(t)] == alone[static_cast<size_t>(t)]);
  }
}
