// Dot products: the scalar kernels against dequantize-then-multiply in double, and every SIMD
// kernel this CPU can run against the scalar one, for every weight type.
#include <catch2/catch.hpp>
#include <cmath>

#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/dequant.h"
#include "kernels/quant/dot_activation.h"
#include "tests/kernels/random_weights.h"

using kernels::GgmlType;

namespace {

struct DotInputs {
  std::vector<std::byte> w, x;  // one weight row, one converted activation row
  double exact = 0;             // dequantized w · dequantized x in double
  double magnitude = 0;         // sum |w_i x_i|: the scale of rounding errors
};

DotInputs make_inputs(GgmlType type, int64_t n, std::mt19937& rng) {
  DotInputs in;
  in.w = kernels::test::random_weights(type, 1, n, rng);
  const GgmlType xt = kernels::dot_type(type);
  const auto xf = kernels::test::random_floats(static_cast<size_t>(n), rng);
  in.x.resize(kernels::row_bytes(xt, n));
  kernels::quantize_activation_row(xt, xf.data(), in.x.data(), n);
  std::vector<float> wd(static_cast<size_t>(n)), xd(static_cast<size_t>(n));
  kernels::dequantize_row(type, in.w.data(), wd.data(), n);
  kernels::dequantize_row(xt, in.x.data(), xd.data(), n);
  for (size_t i = 0; i < wd.size(); ++i) {
    in.exact += static_cast<double>(wd[i]) * xd[i];
    in.magnitude += std::fabs(static_cast<double>(wd[i]) * xd[i]);
  }
  return in;
}

}  // namespace

TEST_CASE("Scalar dot products equal dequantized products", "[kernels]") {
  std::mt19937 rng(7);
  for (GgmlType type : kernels::test::kWeightTypes) {
    const int64_t block = std::max<int64_t>(kernels::traits(kernels::dot_type(type)).block_size,
                                            kernels::traits(type).block_size);
    for (int64_t n : {block, 4 * block, 7 * block}) {
      const auto in = make_inputs(type, n, rng);
      const float got = kernels::scalar_vec_dot(type)(in.w.data(), in.x.data(), n);
      INFO(kernels::traits(type).name << " n=" << n);
      CHECK(std::fabs(got - in.exact) <= 1e-5 * in.magnitude + 1e-7);
    }
  }
}

TEST_CASE("SIMD dot products match the scalar ones", "[kernels]") {
  std::mt19937 rng(11);
  const kernels::SimdLevel levels[] = {kernels::SimdLevel::Avx2, kernels::SimdLevel::Avx512};
  int num_checked = 0;
  for (auto level : levels) {
    if (level > kernels::cpu_vec_dot_level()) continue;
    for (GgmlType type : kernels::test::kWeightTypes) {
      const auto fast =
          level == kernels::SimdLevel::Avx2 ? kernels::avx2_vec_dot(type) : kernels::vec_dot_for(type, level);
      if (!fast || fast == kernels::scalar_vec_dot(type)) continue;
      int64_t block = std::max<int64_t>(kernels::traits(kernels::dot_type(type)).block_size,
                                        kernels::traits(type).block_size);
      if (block == 1) block = 23;  // F32 / F16 / BF16: lengths past their 16- to 64-value steps
      // Lengths that exercise every tail of the unrolled loops.
      for (int64_t blocks : {1, 2, 3, 5, 8, 17, 28}) {
        const int64_t n = blocks * block;
        const auto in = make_inputs(type, n, rng);
        const float want = kernels::scalar_vec_dot(type)(in.w.data(), in.x.data(), n);
        const float got = fast(in.w.data(), in.x.data(), n);
        INFO(kernels::to_string(level) << " " << kernels::traits(type).name << " n=" << n);
        CHECK(std::fabs(got - want) <= 1e-5 * in.magnitude + 1e-7);
        ++num_checked;
      }
    }
  }
  if (kernels::cpu_vec_dot_level() != kernels::SimdLevel::Scalar) CHECK(num_checked > 0);
}

TEST_CASE("Multi-row dot kernels match the single-row kernel", "[kernels]") {
  std::mt19937 rng(13);
  int num_checked = 0;
  for (auto level : {kernels::SimdLevel::Avx2, kernels::SimdLevel::Avx512}) {
    if (level > kernels::cpu_vec_dot_level()) continue;
    for (GgmlType type : kernels::test::kWeightTypes) {
      const auto rows_fn = kernels::vec_dot_rows_for(type, level);
      if (!rows_fn) continue;
      const GgmlType xt = kernels::dot_type(type);
      // BF16 (blocks of 1): 64-value steps, one of 32 and a tail of 11.
      const int64_t n = type == GgmlType::BF16 ? 235 : 12 * kernels::traits(type).block_size;
      const auto w = kernels::test::random_weights(type, 1, n, rng);
      const size_t x_stride = kernels::row_bytes(xt, n);
      std::vector<std::byte> x(x_stride * kernels::kMaxDotRows);
      for (int r = 0; r < kernels::kMaxDotRows; ++r) {
        const auto xf = kernels::test::random_floats(static_cast<size_t>(n), rng);
        kernels::quantize_activation_row(xt, xf.data(), x.data() + static_cast<size_t>(r) * x_stride, n);
      }
      // Q8_0 block scales as floats, as the matmul passes them (no scales for other dot types).
      const int64_t nb = n / 32;
      std::vector<float> scales;
      for (int r = 0; r < kernels::kMaxDotRows && xt == GgmlType::Q8_0; ++r)
        for (int64_t k = 0; k < nb; ++k)
          scales.push_back(kernels::f16_to_f32(
              reinterpret_cast<const kernels::BlockQ8_0*>(x.data() + static_cast<size_t>(r) * x_stride)[k]
                  .d));
      const auto single = kernels::vec_dot_for(type, level);
      for (int num_x = 1; num_x <= kernels::kMaxDotRows; ++num_x) {
        std::vector<float> out(static_cast<size_t>(2 * num_x), -1.0f);
        rows_fn(w.data(), kernels::DotRows{x.data(), x_stride, scales.empty() ? nullptr : scales.data(), nb},
                num_x, n, out.data(), 2);
        for (int r = 0; r < num_x; ++r) {
          const std::byte* xr = x.data() + static_cast<size_t>(r) * x_stride;
          const float want = kernels::scalar_vec_dot(type)(w.data(), xr, n);
          INFO(kernels::to_string(level) << " " << kernels::traits(type).name << " rows " << num_x);
          CHECK(out[static_cast<size_t>(2 * r)] == Approx(want).epsilon(1e-5).margin(1e-5));
          CHECK(out[static_cast<size_t>(2 * r)] == single(w.data(), xr, n));  // bit for bit: batch invariance
          CHECK(out[static_cast<size_t>(2 * r + 1)] == -1.0f);
        }
        ++num_checked;
      }
    }
  }
  // AVX2: Q8_0, Q4_0, Q5_0; AVX-512: those and Q4_K, Q5_K, Q6_K (and BF16 with AVX512_BF16); each
  // with 1 to 4 rows.
  if (kernels::cpu_vec_dot_level() == kernels::SimdLevel::Avx512)
    CHECK(num_checked == (kernels::cpu_has_avx512_bf16() ? 10 : 9) * kernels::kMaxDotRows);
  if (kernels::cpu_vec_dot_level() == kernels::SimdLevel::Avx2)
    CHECK(num_checked == 3 * kernels::kMaxDotRows);
}
