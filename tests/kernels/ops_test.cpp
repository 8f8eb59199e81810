// The elementwise and normalisation ops against values worked out by hand: rmsnorm, rope (normal,
// neox, partial rotation, frequency factors, linear scaling), swiglu, add, add_bias, softmax and
// embedding lookup.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"

TEST_CASE("rmsnorm divides by the root mean square and scales by the weight", "[kernels]") {
  const std::vector<float> x = {3, 4, 0, 0, 1, 1, 1, 1};  // two rows of 4
  const std::vector<float> w = {1, 2, 3, 4};
  std::vector<float> out(8);
  kernels::rmsnorm(x, w, 4, 0.0f, out);
  // Row 0: rms = sqrt(25/4) = 2.5; row 1: rms = 1.
  CHECK(out[0] == Approx(3 / 2.5));
  CHECK(out[1] == Approx(2 * 4 / 2.5));
  CHECK(out[2] == 0.0f);
  CHECK(out[5] == Approx(2.0));
  // eps enters under the root; out may alias x.
  std::vector<float> y = {1, 1, 1, 1};
  kernels::rmsnorm(y, std::vector<float>(4, 1.0f), 4, 3.0f, y);
  CHECK(y[0] == Approx(0.5));
}

TEST_CASE("rope normal rotates adjacent pairs by pos * base^(-2i/d)", "[kernels]") {
  // One head of 4: pairs (0,1) at theta = pos, (2,3) at theta = pos * 100^(-1/2) = pos / 10.
  std::vector<float> x = {1, 0, 0, 1};
  const std::vector<int32_t> pos = {2};
  kernels::RopeParams p{kernels::RopeStyle::Normal, 4, 100.0f};
  kernels::rope(x, pos, 1, 4, p);
  CHECK(x[0] == Approx(std::cos(2.0)));
  CHECK(x[1] == Approx(std::sin(2.0)));
  CHECK(x[2] == Approx(-std::sin(0.2)));
  CHECK(x[3] == Approx(std::cos(0.2)));
}

TEST_CASE("rope neox pairs i with i + d/2; position 0 is the identity", "[kernels]") {
  std::vector<float> x = {1, 0, 0, 0, /*second row*/ 1, 2, 3, 4};
  const std::vector<int32_t> pos = {1, 0};
  kernels::RopeParams p{kernels::RopeStyle::Neox, 4, 100.0f};
  kernels::rope(x, pos, 1, 4, p);
  // Row 0: pair (0, 2) at theta = 1.
  CHECK(x[0] == Approx(std::cos(1.0)));
  CHECK(x[2] == Approx(std::sin(1.0)));
  CHECK(x[1] == 0.0f);
  CHECK(std::vector<float>(x.begin() + 4, x.end()) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("rope leaves dimensions past rot_dim alone and honours factors and scaling", "[kernels]") {
  // Two heads of 4 with rot_dim 2: only pair (0,1) of each head turns, at theta = pos * scale / factor.
  std::vector<float> x = {1, 0, 5, 6, 1, 0, 7, 8};
  const std::vector<int32_t> pos = {3};
  const float factors[] = {2.0f};
  kernels::RopeParams p{kernels::RopeStyle::Normal, 2, 10000.0f, 0.5f, factors};
  kernels::rope(x, pos, 2, 4, p);
  const double theta = 3 * 0.5 / 2.0;
  for (int h = 0; h < 2; ++h) {
    CHECK(x[static_cast<size_t>(4 * h)] == Approx(std::cos(theta)));
    CHECK(x[static_cast<size_t>(4 * h + 1)] == Approx(std::sin(theta)));
  }
  CHECK(x[2] == 5.0f);
  CHECK(x[7] == 8.0f);
}

TEST_CASE("swiglu, add, add_bias and softmax", "[kernels]") {
  const std::vector<float> g = {0, 1, -2}, u = {5, 2, 3};
  std::vector<float> out(3);
  kernels::swiglu(g, u, out);
  CHECK(out[0] == 0.0f);
  CHECK(out[1] == Approx(2 / (1 + std::exp(-1.0))));
  CHECK(out[2] == Approx(3 * -2 / (1 + std::exp(2.0))));

  kernels::add(g, u, out);
  CHECK(out == std::vector<float>{5, 3, 1});

  std::vector<float> x = {1, 2, 3, 4};
  kernels::add_bias(x, std::vector<float>{10, 20});
  CHECK(x == std::vector<float>{11, 22, 13, 24});

  std::vector<float> s = {1000, 999, 1001};  // large values: the max is subtracted before exp
  kernels::softmax(s);
  const double total = 1 + std::exp(-1.0) + std::exp(1.0);
  CHECK(s[0] == Approx(1 / total));
  CHECK(s[1] == Approx(std::exp(-1.0) / total));
  CHECK(s[2] == Approx(std::exp(1.0) / total));
}

TEST_CASE("geglu: GELU's tanh form at F16 precision, times up; scale", "[kernels]") {
  const auto gelu = [](double x) {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  };
  // 1.0001 is not an F16 value: it is taken as 1.0 (the F16 next to it), as ggml's table does.
  const std::vector<float> g = {0.0f, 1.0001f, -1.5f, 3.0f, -10.0f, -12.0f, 10.0f, 11.0f};
  const std::vector<float> u = {1, 2, 1, 1, 1, 1, 1, 0.5f};
  std::vector<float> out(g.size());
  kernels::geglu(g, u, out);
  CHECK(out[0] == 0.0f);
  CHECK(out[1] == Approx(2 * gelu(1.0)).epsilon(1e-3));
  CHECK(out[1] == 2 * kernels::f16_to_f32(kernels::f32_to_f16(static_cast<float>(gelu(1.0)))));
  CHECK(out[2] == Approx(gelu(-1.5)).epsilon(1e-3));
  CHECK(out[3] == Approx(gelu(3.0)).epsilon(1e-3));
  CHECK(out[4] == 0.0f);  // at or below -10: 0
  CHECK(out[5] == 0.0f);
  CHECK(out[6] == 10.0f);  // at or above 10: x
  CHECK(out[7] == 5.5f);
  std::vector<float> x = {1, -2, 0.5f};
  kernels::scale(x, 4.0f);
  CHECK(x == std::vector<float>{4, -8, 2});
}

TEST_CASE("embedding returns dequantized rows", "[kernels]") {
  // A Q8_0 table of 3 rows of 32: row r has d = r + 1 and q_i = i.
  kernels::BlockQ8_0 table[3];
  for (int r = 0; r < 3; ++r) {
    table[r].d = kernels::f32_to_f16(static_cast<float>(r + 1));
    std::iota(table[r].qs, table[r].qs + 32, 0);
  }
  const auto view = kernels::matrix_view(table, kernels::GgmlType::Q8_0, 3, 32);
  const std::vector<int32_t> ids = {2, 0};
  std::vector<float> out(64);
  kernels::embedding(view, ids, out);
  CHECK(out[5] == 15.0f);
  CHECK(out[32 + 5] == 5.0f);
}
