// The register-blocked matmul tiles (kernels/cpu/matmul_tiles.h): against the scalar dot
// products for odd shapes (weight rows not a multiple of 4, 1..13 activation rows), and the
// batch invariance the engine relies on: a row's products are bit for bit the same whether it
// comes alone or among others, through kernels::matmul, for every weight type.
#include "kernels/cpu/matmul_tiles.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/dot_activation.h"
#include "kernels/thread_pool.h"
#include "tests/kernels/random_weights.h"

using kernels::GgmlType;

TEST_CASE("Matmul tiles match the scalar dot products for odd shapes", "[kernels]") {
  if (kernels::cpu_vec_dot_level() == kernels::SimdLevel::Scalar) {
    CHECK(kernels::avx2_tile_matmul(GgmlType::Q8_0) == nullptr);  // not built: nothing to compare
    return;
  }
  std::mt19937 rng(21);
  int num_checked = 0;
  for (GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_0}) {
    const auto tiles = kernels::avx2_tile_matmul(type);
    REQUIRE(tiles != nullptr);
    const auto scalar = kernels::scalar_vec_dot(type);
    for (int64_t cols : {32, 96, 928}) {
      const int64_t blocks = cols / 32;
      for (int64_t rows : {1, 3, 4, 5, 9}) {
        const auto data = kernels::test::random_weights(type, rows, cols, rng);
        const auto w = kernels::matrix_view(data.data(), type, rows, cols);
        for (int64_t n : {1, 2, 3, 4, 5, 7, 13}) {
          const auto xf = kernels::test::random_floats(static_cast<size_t>(n * cols), rng);
          const size_t xrow = kernels::row_bytes(GgmlType::Q8_0, cols);
          std::vector<std::byte> xq(static_cast<size_t>(n) * xrow);
          std::vector<int16_t> wide(static_cast<size_t>(n * cols));
          std::vector<float> scales(static_cast<size_t>(n * blocks));
          for (int64_t j = 0; j < n; ++j) {
            kernels::quantize_activation_row(GgmlType::Q8_0, xf.data() + j * cols, xq.data() + j * xrow,
                                             cols);
            kernels::widen_q8_0_row(xq.data() + j * xrow, blocks, wide.data() + j * cols,
                                    scales.data() + j * blocks);
          }
          // A sentinel around the written block: the tiles must write exactly [r0, r1) x [j0, j1).
          const int64_t stride = rows + 2;
          std::vector<float> y(static_cast<size_t>(n * stride), -7.0f);
          // With the Q8_0 bytes given too, the single-row kernels may take their byte path.
          const bool with_bytes = (n + rows) % 2 == 0;
          const kernels::WideRows x{wide.data(), scales.data(), blocks, with_bytes ? xq.data() : nullptr,
                                    xrow};
          tiles(w, 0, rows, x, 0, n, y.data() + 1, stride);
          for (int64_t j = 0; j < n; ++j) {
            CHECK(y[static_cast<size_t>(j * stride)] == -7.0f);
            CHECK(y[static_cast<size_t>(j * stride + rows + 1)] == -7.0f);
            for (int64_t r = 0; r < rows; ++r) {
              const float want = scalar(w.row(r), xq.data() + j * xrow, cols);
              const float got = y[static_cast<size_t>(j * stride + 1 + r)];
              INFO(kernels::traits(type).name << " cols=" << cols << " rows=" << rows << " n=" << n
                                              << " r=" << r << " j=" << j);
              CHECK(std::fabs(got - want) <= 1e-5f * (std::fabs(want) + 1.0f));
              ++num_checked;
            }
          }
        }
      }
    }
  }
  CHECK(num_checked > 0);
}

TEST_CASE("A matmul row's result does not depend on the rows sharing its batch", "[kernels]") {
  std::mt19937 rng(23);
  const int64_t cols = 256, rows = 37, n = 11;
  for (int threads : {1, 2}) {
    kernels::ThreadPool pool(threads);
    for (GgmlType type : kernels::test::kWeightTypes) {
      const auto data = kernels::test::random_weights(type, rows, cols, rng);
      const auto w = kernels::matrix_view(data.data(), type, rows, cols);
      const auto x = kernels::test::random_floats(static_cast<size_t>(n * cols), rng);
      std::vector<float> batch(static_cast<size_t>(n * rows));
      kernels::matmul(w, x, n, batch, pool);
      for (int64_t j = 0; j < n; ++j) {
        std::vector<float> alone(static_cast<size_t>(rows));
        kernels::matmul(w, std::span(x).subspan(static_cast<size_t>(j * cols), static_cast<size_t>(cols)), 1,
                        alone, pool);
        INFO(kernels::traits(type).name << " threads=" << threads << " row " << j);
        CHECK(std::equal(alone.begin(), alone.end(), batch.begin() + j * rows));
      }
      // A prefix of the batch (as when a sequence's prompt is split across steps).
      std::vector<float> prefix(static_cast<size_t>(5 * rows));
      kernels::matmul(w, x, 5, prefix, pool);
      CHECK(std::equal(prefix.begin(), prefix.end(), batch.begin()));
    }
  }
}
