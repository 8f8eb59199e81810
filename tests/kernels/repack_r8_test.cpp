// Weights repacked for the SIMD matmuls (kernels/cpu/matmul_r8.h): the layout round-trips to
// ggml's blocks; the R8 kernels match the scalar dot products for odd shapes (rows not a multiple
// of 8, 1..13 activation rows) and write nothing outside their output; and kernels::matmul on a
// repacked view keeps a row's result bit for bit the same whatever shares its batch or however
// many threads run it.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/half.h"
#include "kernels/cpu/matmul_r8.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/dequant.h"
#include "kernels/quant/dot_activation.h"
#include "kernels/thread_pool.h"
#include "tests/kernels/random_weights.h"

using kernels::GgmlType;

namespace {

constexpr GgmlType kR8Types[] = {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_0};
constexpr GgmlType kR8KTypes[] = {GgmlType::Q4_K, GgmlType::Q6_K};
constexpr GgmlType kAllR8Types[] = {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_0, GgmlType::Q4_K,
                                    GgmlType::Q6_K};

bool is_k(GgmlType type) {
  return type == GgmlType::Q4_K || type == GgmlType::Q6_K;
}

struct Repacked {
  std::vector<std::byte> data;
  kernels::MatrixView view;
};

Repacked repack(const kernels::MatrixView& w) {
  Repacked r;
  r.data.resize(kernels::r8_bytes(w.type, w.rows, w.cols));
  r.view = kernels::repack_r8(w, r.data.data());
  return r;
}

// What run(out, stride) writes into rows x n outputs (stride rows + 2, the first output at
// offset 1), every slot first -7: the kernel must write exactly rows [0, rows) of each activation
// row and leave the sentinel either side.
template <typename Run>
std::vector<float> run_with_sentinels(int64_t rows, int64_t n, Run run) {
  const int64_t stride = rows + 2;
  std::vector<float> y(static_cast<size_t>(n * stride), -7.0f);
  run(y.data() + 1, stride);
  for (int64_t j = 0; j < n; ++j) {
    CHECK(y[static_cast<size_t>(j * stride)] == -7.0f);
    CHECK(y[static_cast<size_t>(j * stride + rows + 1)] == -7.0f);
  }
  return y;
}

}  // namespace

TEST_CASE("R8 repacking round-trips every row to its ggml blocks", "[kernels]") {
  std::mt19937 rng(31);
  for (GgmlType type : kAllR8Types)
    for (int64_t cols : is_k(type) ? std::vector<int64_t>{256, 768} : std::vector<int64_t>{32, 96, 928})
      for (int64_t rows : {1, 7, 8, 9, 17}) {
        const auto data = kernels::test::random_weights(type, rows, cols, rng);
        const auto w = kernels::matrix_view(data.data(), type, rows, cols);
        const auto packed = repack(w);
        CHECK(packed.view.interleave == kernels::kR8);
        CHECK(packed.data.size() ==
              static_cast<size_t>((rows + 7) / 8) * kernels::r8_group_bytes(type, cols));
        if (type != GgmlType::Q4_K) CHECK(kernels::r8_group_bytes(type, cols) == 8 * w.row_stride);
        std::vector<std::byte> row(w.row_stride);
        for (int64_t r = 0; r < rows; ++r) {
          kernels::unpack_r8_row(packed.view, r, row.data());
          INFO(kernels::traits(type).name << " rows=" << rows << " cols=" << cols << " r=" << r);
          CHECK(std::memcmp(row.data(), w.row(r), w.row_stride) == 0);
        }
      }
}

TEST_CASE("R8 kernels match the scalar dot products for odd shapes, and each other bit for bit",
          "[kernels]") {
  const kernels::SimdLevel cpu = kernels::cpu_vec_dot_level();
  if (cpu == kernels::SimdLevel::Scalar) {
    CHECK(kernels::r8_matmul_for(GgmlType::Q8_0, cpu) == nullptr);  // no R8 kernel: nothing to compare
    return;
  }
  std::mt19937 rng(37);
  // The plain AVX-512BW kernel (for CPUs without VNNI) runs on every AVX-512 CPU.
  const bool has_avx512bw = kernels::detect_simd_level() >= kernels::SimdLevel::Avx512;
  int num_checked = 0, num_same = 0, num_same_bw = 0;
  for (GgmlType type : kR8Types) {
    const auto avx2 = kernels::r8_matmul_for(type, kernels::SimdLevel::Avx2);
    const auto avx512 = cpu >= kernels::SimdLevel::Avx512 ? kernels::r8_matmul_for(type, cpu) : nullptr;
    const auto avx512bw = has_avx512bw ? kernels::avx512bw_r8_matmul(type) : nullptr;
    REQUIRE(avx2 != nullptr);
    if (cpu >= kernels::SimdLevel::Avx512) REQUIRE((avx512 != nullptr && avx512 != avx2));
    if (has_avx512bw) REQUIRE(avx512bw != nullptr);
    const auto scalar = kernels::scalar_vec_dot(type);
    for (int64_t cols : {32, 96, 928}) {
      const int64_t blocks = cols / 32;
      for (int64_t rows : {1, 3, 8, 9, 21}) {
        const auto data = kernels::test::random_weights(type, rows, cols, rng);
        const auto w = kernels::matrix_view(data.data(), type, rows, cols);
        const auto packed = repack(w);
        for (int64_t n : {1, 2, 3, 4, 5, 7, 13}) {
          const auto xf = kernels::test::random_floats(static_cast<size_t>(n * cols), rng);
          const size_t xrow = kernels::row_bytes(GgmlType::Q8_0, cols);
          std::vector<std::byte> xq(static_cast<size_t>(n) * xrow);
          std::vector<float> scales(static_cast<size_t>(n * blocks));
          std::vector<int32_t> sums(static_cast<size_t>(n * blocks));
          for (int64_t j = 0; j < n; ++j) {
            kernels::quantize_activation_row(GgmlType::Q8_0, xf.data() + j * cols, xq.data() + j * xrow,
                                             cols);
            const auto* b = reinterpret_cast<const kernels::BlockQ8_0*>(xq.data() + j * xrow);
            for (int64_t k = 0; k < blocks; ++k) {
              scales[static_cast<size_t>(j * blocks + k)] = kernels::f16_to_f32(b[k].d);
              int32_t s = 0;
              for (int v = 0; v < 32; ++v) s += b[k].qs[v];
              sums[static_cast<size_t>(j * blocks + k)] = s;
            }
          }
          const kernels::R8Rows x{xq.data(), xrow, scales.data(), sums.data(), blocks};
          const auto run = [&](kernels::R8MatmulFn kernel) {
            return run_with_sentinels(
                rows, n, [&](float* out, int64_t s) { kernel(packed.view, 0, rows, x, 0, n, out, s); });
          };
          const int64_t stride = rows + 2;
          const auto y = run(avx2);
          for (int64_t j = 0; j < n; ++j) {
            for (int64_t r = 0; r < rows; ++r) {
              const float want = scalar(w.row(r), xq.data() + j * xrow, cols);
              const float got = y[static_cast<size_t>(j * stride + 1 + r)];
              INFO(kernels::traits(type).name << " cols=" << cols << " rows=" << rows << " n=" << n
                                              << " r=" << r << " j=" << j);
              CHECK(std::fabs(got - want) <= 1e-5f * (std::fabs(want) + 1.0f));
              ++num_checked;
            }
          }
          INFO(kernels::traits(type).name << " cols=" << cols << " rows=" << rows << " n=" << n);
          // The AVX-512 kernels compute the AVX2 kernel's arithmetic: the same bits, sentinels too.
          if (avx512bw != nullptr) {
            CHECK(run(avx512bw) == y);
            ++num_same_bw;
          }
          if (avx512 == nullptr) continue;
          CHECK(run(avx512) == y);
          ++num_same;
        }
      }
    }
  }
  CHECK(num_checked > 0);
  if (cpu >= kernels::SimdLevel::Avx512) CHECK(num_same == 3 * 3 * 5 * 7);
  if (has_avx512bw) CHECK(num_same_bw == 3 * 3 * 5 * 7);
}

TEST_CASE("K-quant R8 kernels match the scalar dot products, and each other bit for bit", "[kernels]") {
  const kernels::SimdLevel cpu = kernels::cpu_vec_dot_level();
  if (cpu == kernels::SimdLevel::Scalar) {
    CHECK(kernels::r8k_matmul_for(GgmlType::Q4_K, cpu) == nullptr);  // no R8 kernel: nothing to compare
    return;
  }
  std::mt19937 rng(43);
  const bool has_avx512bw = kernels::detect_simd_level() >= kernels::SimdLevel::Avx512;
  int num_checked = 0, num_same = 0, num_same_bw = 0;
  for (GgmlType type : kR8KTypes) {
    const auto avx2 = kernels::r8k_matmul_for(type, kernels::SimdLevel::Avx2);
    const auto avx512 = cpu >= kernels::SimdLevel::Avx512 ? kernels::r8k_matmul_for(type, cpu) : nullptr;
    REQUIRE(avx2 != nullptr);
    if (cpu >= kernels::SimdLevel::Avx512) REQUIRE((avx512 != nullptr && avx512 != avx2));
    const auto avx512bw = has_avx512bw ? kernels::avx512bw_r8k_matmul(type) : nullptr;
    if (has_avx512bw) REQUIRE(avx512bw != nullptr);
    const auto scalar = kernels::scalar_vec_dot(type);
    for (int64_t cols : {256, 768}) {
      for (int64_t rows : {1, 3, 8, 9, 21}) {
        const auto data = kernels::test::random_weights(type, rows, cols, rng);
        const auto w = kernels::matrix_view(data.data(), type, rows, cols);
        const auto packed = repack(w);
        for (int64_t n : {1, 2, 3, 4, 5, 7}) {
          // Activations of a wide range, so that the integer sums reach their bounds.
          const auto xf = kernels::test::random_floats(static_cast<size_t>(n * cols), rng, 4.0f);
          const size_t xrow = kernels::row_bytes(GgmlType::Q8_K, cols);
          std::vector<std::byte> xq(static_cast<size_t>(n) * xrow);
          for (int64_t j = 0; j < n; ++j)
            kernels::quantize_activation_row(GgmlType::Q8_K, xf.data() + j * cols, xq.data() + j * xrow,
                                             cols);
          const kernels::DotRows x{xq.data(), xrow, nullptr, 0};
          const auto run = [&](kernels::R8KMatmulFn kernel) {
            return run_with_sentinels(
                rows, n, [&](float* out, int64_t s) { kernel(packed.view, 0, rows, x, 0, n, out, s); });
          };
          const int64_t stride = rows + 2;
          const auto y = run(avx2);
          // The kernels sum exact integers per super-block; the reference is the dequantized
          // values' dot in double, within the float rounding of each super-block's terms.
          std::vector<float> wf(static_cast<size_t>(cols)), xd(static_cast<size_t>(cols));
          for (int64_t j = 0; j < n; ++j) {
            kernels::dequantize_row(GgmlType::Q8_K, xq.data() + j * xrow, xd.data(), cols);
            for (int64_t r = 0; r < rows; ++r) {
              kernels::dequantize_row(type, w.row(r), wf.data(), cols);
              double want = 0, magnitude = 0;
              for (int64_t c = 0; c < cols; ++c) {
                want += double{wf[static_cast<size_t>(c)]} * xd[static_cast<size_t>(c)];
                magnitude += std::fabs(double{wf[static_cast<size_t>(c)]} * xd[static_cast<size_t>(c)]);
              }
              const float got = y[static_cast<size_t>(j * stride + 1 + r)];
              INFO(kernels::traits(type).name << " cols=" << cols << " rows=" << rows << " n=" << n
                                              << " r=" << r << " j=" << j << " want " << want);
              CHECK(std::fabs(got - want) <= 1e-6 * magnitude + 1e-6);
              // ... and as close to the scalar kernel as the scalar kernel is to the reference.
              const float scalar_got = scalar(w.row(r), xq.data() + j * xrow, cols);
              CHECK(std::fabs(got - want) <= std::fabs(scalar_got - want) + 1e-6 * magnitude + 1e-6);
              ++num_checked;
            }
          }
          INFO(kernels::traits(type).name << " cols=" << cols << " rows=" << rows << " n=" << n);
          // The AVX-512 kernels (VNNI, and plain BW for CPUs without it) give the AVX2 bits.
          if (avx512bw != nullptr) {
            CHECK(run(avx512bw) == y);
            ++num_same_bw;
          }
          if (avx512 == nullptr) continue;
          CHECK(run(avx512) == y);
          ++num_same;
        }
      }
    }
  }
  CHECK(num_checked > 0);
  if (cpu >= kernels::SimdLevel::Avx512) CHECK(num_same == 2 * 2 * 5 * 6);
  if (has_avx512bw) CHECK(num_same_bw == 2 * 2 * 5 * 6);
}

TEST_CASE("A repacked matmul row's result does not depend on its batch or the thread count", "[kernels]") {
  std::mt19937 rng(41);
  const int64_t rows = 37, n = 11;
  for (GgmlType type : kAllR8Types) {
    const int64_t cols = is_k(type) ? 512 : 224;
    const auto data = kernels::test::random_weights(type, rows, cols, rng);
    const auto w = kernels::matrix_view(data.data(), type, rows, cols);
    // Every SIMD level repacks (each has an R8 kernel); the scalar dot products read ggml's layout.
    const bool scalar = kernels::vec_dot_level() == kernels::SimdLevel::Scalar;
    CHECK((kernels::repacked_bytes(w) == 0) == scalar);
    if (scalar) continue;
    std::vector<std::byte> buffer(kernels::repacked_bytes(w));
    const auto packed = kernels::repack_for_matmul(w, buffer.data());
    const auto x = kernels::test::random_floats(static_cast<size_t>(n * cols), rng);
    std::vector<float> first;
    for (int threads : {1, 2}) {
      kernels::ThreadPool pool(threads);
      std::vector<float> batch(static_cast<size_t>(n * rows)), original(batch.size());
      kernels::matmul(packed, x, n, batch, pool);
      kernels::matmul(w, x, n, original, pool);
      for (size_t i = 0; i < batch.size(); ++i) {
        INFO(kernels::traits(type).name << " i=" << i);
        CHECK(std::fabs(batch[i] - original[i]) <= 1e-4f * (std::fabs(original[i]) + 1.0f));
      }
      if (first.empty()) first = batch;
      CHECK(first == batch);
      for (int64_t j = 0; j < n; ++j) {
        std::vector<float> alone(static_cast<size_t>(rows));
        kernels::matmul(packed,
                        std::span(x).subspan(static_cast<size_t>(j * cols), static_cast<size_t>(cols)), 1,
                        alone, pool);
        INFO(kernels::traits(type).name << " threads=" << threads << " row " << j);
        CHECK(std::equal(alone.begin(), alone.end(), batch.begin() + j * rows));
      }
      std::vector<float> prefix(static_cast<size_t>(5 * rows));
      kernels::matmul(packed, x, 5, prefix, pool);
      CHECK(std::equal(prefix.begin(), prefix.end(), batch.begin()));
    }
  }
}
