// Quantizers: byte-exact agreement with ggml's reference quantizers (hashes of ggml's output on a
// fixed input), hand-checked blocks (rounding, zeros, constants), and round-trip error bounds per
// type through small reference decoders written here from ggml's block layouts.
#include "kernels/quant/quantize.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/half.h"
#include "kernels/quant/dequant.h"

namespace {

using kernels::GgmlType;

std::vector<std::byte> quantize(GgmlType type, const std::vector<float>& x) {
  std::vector<std::byte> out(kernels::row_bytes(type, static_cast<int64_t>(x.size())));
  kernels::quantize_row(type, x.data(), out.data(), static_cast<int64_t>(x.size()));
  return out;
}

uint8_t u8(const std::vector<std::byte>& b, size_t i) {
  return std::to_integer<uint8_t>(b[i]);
}
uint16_t u16(const std::vector<std::byte>& b, size_t i) {
  return static_cast<uint16_t>(u8(b, i) | (u8(b, i + 1) << 8));
}
float half(const std::vector<std::byte>& b, size_t i) {
  return kernels::f16_to_f32(u16(b, i));
}

// Reference decoders, one block layout each (see ggml-common.h).
std::vector<float> decode(GgmlType type, const std::vector<std::byte>& b, size_t n) {
  std::vector<float> y(n);
  switch (type) {
    case GgmlType::F16:
      for (size_t i = 0; i < n; ++i) y[i] = half(b, 2 * i);
      break;
    case GgmlType::BF16:
      for (size_t i = 0; i < n; ++i) y[i] = kernels::bf16_to_f32(u16(b, 2 * i));
      break;
    case GgmlType::Q8_0:  // d, 32 x int8
      for (size_t i = 0; i < n; ++i)
        y[i] = half(b, i / 32 * 34) * static_cast<int8_t>(u8(b, i / 32 * 34 + 2 + i % 32));
      break;
    case GgmlType::Q5_0:  // d, qh (u32: bit j = 5th bit of value j), 16 bytes of nibbles (j, j + 16)
      for (size_t i = 0; i < n; ++i) {
        const size_t blk = i / 32 * 22, j = i % 32;
        const uint32_t qh =
            u8(b, blk + 2) | (u8(b, blk + 3) << 8) | (u8(b, blk + 4) << 16) | (u8(b, blk + 5) << 24);
        const int lo = j < 16 ? (u8(b, blk + 6 + j) & 0xF) : (u8(b, blk + 6 + j - 16) >> 4);
        y[i] = half(b, blk) * static_cast<float>((lo | static_cast<int>(((qh >> j) & 1) << 4)) - 16);
      }
      break;
    case GgmlType::Q4_K:  // d, dmin, 12 bytes of 6-bit scales/mins, 128 bytes: 64-value groups of nibbles
      for (size_t i = 0; i < n; ++i) {
        const size_t blk = i / 256 * 144, k = i % 256, sub = k / 32;
        const size_t sc_at = blk + 4;
        int sc, m;
        if (sub < 4) {
          sc = u8(b, sc_at + sub) & 63;
          m = u8(b, sc_at + sub + 4) & 63;
        } else {
          sc = (u8(b, sc_at + sub + 4) & 0xF) | ((u8(b, sc_at + sub - 4) >> 6) << 4);
          m = (u8(b, sc_at + sub + 4) >> 4) | ((u8(b, sc_at + sub) >> 6) << 4);
        }
        const uint8_t byte = u8(b, blk + 16 + (k / 64) * 32 + k % 32);
        const int q = (k % 64) < 32 ? (byte & 0xF) : (byte >> 4);
        y[i] = half(b, blk) * static_cast<float>(sc * q) - half(b, blk + 2) * static_cast<float>(m);
      }
      break;
    case GgmlType::Q6_K:  // ql[128], qh[64], int8 scales[16], d
      for (size_t i = 0; i < n; ++i) {
        const size_t blk = i / 256 * 210, k = i % 256, half_i = k / 128, l = k % 32, quarter = (k % 128) / 32;
        const uint8_t ql = u8(b, blk + half_i * 64 + l + (quarter % 2) * 32);
        const int lo = quarter < 2 ? (ql & 0xF) : (ql >> 4);
        const int hi = (u8(b, blk + 128 + half_i * 32 + l) >> (2 * quarter)) & 3;
        const auto scale = static_cast<int8_t>(u8(b, blk + 192 + k / 16));
        y[i] = half(b, blk + 208) * static_cast<float>(scale * ((lo | (hi << 4)) - 32));
      }
      break;
    default:
      FAIL("no reference decoder");
  }
  return y;
}

uint64_t fnv1a(const std::vector<std::byte>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (auto b : bytes) h = (h ^ std::to_integer<uint8_t>(b)) * 0x100000001b3ull;
  return h;
}

// Exactly representable on every IEEE machine: integer ops and correctly rounded divisions, with a
// block of zeros and a constant block.
float golden_input(int i) {
  if (i >= 512 && i < 544) return 0.0f;
  if (i >= 1024 && i < 1056) return 0.75f;
  return static_cast<float>((i * 37) % 101 - 50) / 7.0f * static_cast<float>(i % 5 + 1) / 3.0f;
}

}  // namespace

TEST_CASE("Quantizers write the same bytes as ggml's reference quantizers", "[kernels]") {
  std::vector<float> x(2048);
  for (int i = 0; i < 2048; ++i) x[i] = golden_input(i);
  // FNV-1a of ggml's quantize_row_*_ref / fp32-to-fp16/bf16 output on this input (libggml-base of
  // llama.cpp as shipped by node-llama-cpp 3.22.1).
  CHECK(fnv1a(quantize(GgmlType::Q8_0, x)) == 0x85ffe7f48cdc2267ull);
  CHECK(fnv1a(quantize(GgmlType::Q5_0, x)) == 0x9ceb6dc7b7d86db1ull);
  CHECK(fnv1a(quantize(GgmlType::Q4_K, x)) == 0x0bc37ef96cd3c385ull);
  CHECK(fnv1a(quantize(GgmlType::Q6_K, x)) == 0x099646d09ad28678ull);
  CHECK(fnv1a(quantize(GgmlType::F16, x)) == 0x9b404b564401244full);
  CHECK(fnv1a(quantize(GgmlType::BF16, x)) == 0x2cc4972fd268d794ull);
}

TEST_CASE("Q8_0 rounds halves away from zero against d = amax / 127", "[kernels]") {
  std::vector<float> x(32, 0.0f);
  x[0] = 127.0f;  // d = 1
  x[1] = -63.5f;  // -64, not -63 (away from zero, not to even)
  x[2] = 0.5f;    // 1
  x[3] = -0.49f;  // 0
  x[4] = 2.5f;    // 3
  const auto b = quantize(GgmlType::Q8_0, x);
  CHECK(u16(b, 0) == 0x3C00);  // 1.0 in F16
  CHECK(static_cast<int8_t>(u8(b, 2)) == 127);
  CHECK(static_cast<int8_t>(u8(b, 3)) == -64);
  CHECK(static_cast<int8_t>(u8(b, 4)) == 1);
  CHECK(static_cast<int8_t>(u8(b, 5)) == 0);
  CHECK(static_cast<int8_t>(u8(b, 6)) == 3);
  for (size_t i = 7; i < 34; ++i) CHECK(u8(b, i) == 0);
}

TEST_CASE("Q5_0 scales by the value of largest magnitude over -16", "[kernels]") {
  std::vector<float> x(32, 0.0f);
  x[0] = 16.0f;  // d = -1: q = 0 (decodes to 16)
  x[1] = -8.0f;  // q = 24
  x[16] = 3.0f;  // q = 13, in the high nibble of byte 0
  const auto b = quantize(GgmlType::Q5_0, x);
  CHECK(u16(b, 0) == 0xBC00);  // -1.0 in F16
  CHECK(u8(b, 6) == ((13 & 0xF) << 4 | 0));
  CHECK((u8(b, 7) & 0xF) == (24 & 0xF));
  const auto y = decode(GgmlType::Q5_0, b, 32);
  CHECK(y[0] == 16.0f);
  CHECK(y[1] == -8.0f);
  CHECK(y[16] == 3.0f);
  CHECK(y[5] == 0.0f);
}

TEST_CASE("All-zero blocks quantize to the bytes ggml writes for them", "[kernels]") {
  const std::vector<float> zeros(256, 0.0f);
  for (auto type : {GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q6_K, GgmlType::F16, GgmlType::BF16}) {
    const auto b = quantize(type, zeros);
    for (size_t i = 0; i < b.size(); ++i) REQUIRE(u8(b, i) == 0);
  }
  // Q5_0: d = 0 / -16 = -0 and every value stores q = 16 (the fifth bit set).
  const auto b = quantize(GgmlType::Q5_0, zeros);
  CHECK(u16(b, 0) == 0x8000);
  for (size_t i = 2; i < 6; ++i) CHECK(u8(b, i) == 0xFF);
  for (size_t i = 6; i < 22; ++i) CHECK(u8(b, i) == 0);
  for (float v : decode(GgmlType::Q5_0, b, 256)) CHECK(v == 0.0f);
}

TEST_CASE("Constant blocks decode to the constant", "[kernels]") {
  for (float c : {1.0f, -0.75f, 0.25f}) {
    const std::vector<float> x(256, c);
    for (auto type : {GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
      const auto y = decode(type, quantize(type, x), x.size());
      for (float v : y) REQUIRE(v == Approx(c).epsilon(2e-3));
    }
  }
}

TEST_CASE("Quantization errors stay within each type's bound", "[kernels]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(256 * 64);
  for (auto& v : x) v = normal(rng) * 0.05f;
  // Relative RMS error bounds (RMS of the error over the RMS of the data): 4 bits ~ 1/16 of the
  // range, 5 bits ~ 1/32, 6 bits ~ 1/64, 8 bits ~ 1/256, F16 ~ 2^-11, BF16 ~ 2^-8.
  const std::pair<GgmlType, double> bounds[] = {{GgmlType::Q4_K, 0.12},  {GgmlType::Q5_0, 0.08},
                                                {GgmlType::Q6_K, 0.03},  {GgmlType::Q8_0, 0.01},
                                                {GgmlType::F16, 0.0005}, {GgmlType::BF16, 0.004}};
  double rms = 0;
  for (float v : x) rms += v * v;
  rms = std::sqrt(rms / x.size());
  for (const auto& [type, bound] : bounds) {
    const auto y = decode(type, quantize(type, x), x.size());
    double err = 0;
    for (size_t i = 0; i < x.size(); ++i) err += (x[i] - y[i]) * (x[i] - y[i]);
    INFO(kernels::traits(type).name);
    CHECK(std::sqrt(err / x.size()) / rms < bound);
  }
  // Q8_0 per value: at most half a step of d = amax / 127, plus d's F16 rounding (2^-11 relative)
  // times |q| <= 127.
  const auto b = quantize(GgmlType::Q8_0, x);
  const auto y = decode(GgmlType::Q8_0, b, x.size());
  for (size_t blk = 0; blk < x.size() / 32; ++blk) {
    float amax = 0;
    for (size_t j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[blk * 32 + j]));
    for (size_t j = 0; j < 32; ++j)
      REQUIRE(std::fabs(x[blk * 32 + j] - y[blk * 32 + j]) <= amax / 127 * (0.5f + 127.f / 2048));
  }
}

TEST_CASE("can_quantize names the types quantize_row handles", "[kernels]") {
  for (auto type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q5_0,
                    GgmlType::Q4_K, GgmlType::Q6_K})
    CHECK(kernels::can_quantize(type));
  for (auto type : {GgmlType::Q4_0, GgmlType::Q5_K, GgmlType::Q8_K, GgmlType::Q2_K})
    CHECK_FALSE(kernels::can_quantize(type));
  const std::vector<float> x{1.5f, -2.25f};
  const auto b = quantize(GgmlType::F32, x);
  CHECK(std::memcmp(b.data(), x.data(), 8) == 0);
}

TEST_CASE("The kernels' dequantization decodes what the quantizers write", "[kernels]") {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(256 * 8);
  for (auto& v : x) v = normal(rng) * 0.1f;
  for (auto type :
       {GgmlType::F16, GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q5_0, GgmlType::Q4_K, GgmlType::Q6_K}) {
    INFO(kernels::traits(type).name);
    const auto b = quantize(type, x);
    const auto expected = decode(type, b, x.size());
    std::vector<float> y(x.size());
    kernels::dequantize_row(type, b.data(), y.data(), static_cast<int64_t>(y.size()));
    for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == Approx(expected[i]).margin(1e-6));
  }
}
