// Activation conversion for dot products: which type pairs with which weight type, and the Q8_0 /
// Q8_K / F16 / BF16 encodings (scale convention, rounding error bound, block sums).
#include "kernels/quant/dot_activation.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "kernels/cpu/half.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/dequant.h"
#include "kernels/quant/dot_blocks.h"
#include "tests/kernels/random_weights.h"

using kernels::GgmlType;

TEST_CASE("Each weight type pairs with llama.cpp's dot type", "[kernels]") {
  CHECK(kernels::dot_type(GgmlType::F32) == GgmlType::F32);
  CHECK(kernels::dot_type(GgmlType::F16) == GgmlType::F16);
  CHECK(kernels::dot_type(GgmlType::BF16) == GgmlType::BF16);
  CHECK(kernels::dot_type(GgmlType::Q8_0) == GgmlType::Q8_0);
  CHECK(kernels::dot_type(GgmlType::Q4_0) == GgmlType::Q8_0);
  CHECK(kernels::dot_type(GgmlType::Q4_K) == GgmlType::Q8_K);
  CHECK(kernels::dot_type(GgmlType::Q5_K) == GgmlType::Q8_K);
  CHECK(kernels::dot_type(GgmlType::Q6_K) == GgmlType::Q8_K);
}

TEST_CASE("Q8_0 activations: d = max|x|/127 per 32, error at most d/2", "[kernels]") {
  std::mt19937 rng(1);
  auto x = kernels::test::random_floats(64, rng);
  x[3] = -5.0f;  // the largest magnitude of block 0 maps to -127
  std::vector<kernels::BlockQ8_0> q(2);
  kernels::quantize_activation_row(GgmlType::Q8_0, x.data(), reinterpret_cast<std::byte*>(q.data()), 64);
  CHECK(kernels::f16_to_f32(q[0].d) == Approx(5.0f / 127).epsilon(1e-3));
  CHECK(q[0].qs[3] == -127);
  std::vector<float> back(64);
  kernels::dequantize_row(GgmlType::Q8_0, reinterpret_cast<const std::byte*>(q.data()), back.data(), 64);
  for (size_t i = 0; i < 64; ++i) {
    const float d = kernels::f16_to_f32(q[i / 32].d);
    CHECK(std::fabs(back[i] - x[i]) <= 0.5f * d * 1.01f + 1e-6f);
  }
}

TEST_CASE("Q8_K activations: d = -max/127 by signed maximum, bsums are sums of 16", "[kernels]") {
  std::mt19937 rng(2);
  auto x = kernels::test::random_floats(512, rng);
  x[10] = 9.0f;    // block 0: the largest magnitude is positive -> q = -127, d < 0
  x[300] = -9.0f;  // block 1: negative -> q = -127 again, d > 0
  std::vector<kernels::BlockQ8K> q(2);
  kernels::quantize_activation_row(GgmlType::Q8_K, x.data(), reinterpret_cast<std::byte*>(q.data()), 512);
  CHECK(q[0].d == Approx(-9.0f / 127));
  CHECK(q[0].qs[10] == -127);
  CHECK(q[1].d == Approx(9.0f / 127));
  CHECK(q[1].qs[300 - 256] == -127);
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += q[static_cast<size_t>(b)].qs[16 * j + i];
      CHECK(q[static_cast<size_t>(b)].bsums[j] == sum);
    }
  std::vector<float> back(512);
  kernels::dequantize_row(GgmlType::Q8_K, reinterpret_cast<const std::byte*>(q.data()), back.data(), 512);
  for (size_t i = 0; i < 512; ++i) CHECK(std::fabs(back[i] - x[i]) <= 0.5f * std::fabs(q[i / 256].d) * 1.01f);
}

TEST_CASE("An all-zero Q8_K block has d = 0 and zero sums", "[kernels]") {
  std::vector<float> x(256, 0.0f);
  kernels::BlockQ8K q;
  std::memset(&q, 0x55, sizeof q);
  kernels::quantize_activation_row(GgmlType::Q8_K, x.data(), reinterpret_cast<std::byte*>(&q), 256);
  CHECK(q.d == 0.0f);
  for (int j = 0; j < 16; ++j) CHECK(q.bsums[j] == 0);
}

TEST_CASE("F16 and BF16 activations round to nearest", "[kernels]") {
  const float x[] = {1.0f, 0.1f, -3.5f, 1e-3f};
  uint16_t h[4];
  kernels::quantize_activation_row(GgmlType::F16, x, reinterpret_cast<std::byte*>(h), 4);
  for (int i = 0; i < 4; ++i) CHECK(h[i] == kernels::f32_to_f16(x[i]));
  kernels::quantize_activation_row(GgmlType::BF16, x, reinterpret_cast<std::byte*>(h), 4);
  for (int i = 0; i < 4; ++i) CHECK(h[i] == kernels::f32_to_bf16(x[i]));
  CHECK(kernels::bf16_to_f32(h[0]) == 1.0f);
}

TEST_CASE("The SIMD Q8_0 activation quantizer writes the scalar one's bytes", "[kernels]") {
  const auto fast = kernels::avx2_quantize_row_q8_0();
  if (kernels::cpu_vec_dot_level() == kernels::SimdLevel::Scalar) {
    CHECK(fast == nullptr);  // not built for this CPU: nothing to compare
    return;
  }
  REQUIRE(fast != nullptr);
  std::mt19937 rng(4);
  auto x = kernels::test::random_floats(32 * 40, rng, 3.0f);
  for (int i = 0; i < 32; ++i) x[static_cast<size_t>(32 + i)] = 0.0f;  // an all-zero block
  // Block 2: max 127 so x * 127 / max = x, and every other value a tie k + 0.5 (rounds to even).
  for (int i = 0; i < 32; ++i) x[static_cast<size_t>(64 + i)] = static_cast<float>(i - 16) + 0.5f;
  x[95] = 127.0f;
  std::vector<std::byte> want(kernels::row_bytes(GgmlType::Q8_0, 32 * 40)), got(want.size());
  kernels::quantize_activation_row(GgmlType::Q8_0, x.data(), want.data(), 32 * 40);
  fast(x.data(), got.data(), 32 * 40);
  CHECK(got == want);
}
