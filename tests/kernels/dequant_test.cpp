// Dequantization of hand-built blocks with known values, one test per ggml block layout.
#include "kernels/quant/dequant.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"

using kernels::GgmlType;

namespace {

template <typename Block>
std::vector<float> decode(GgmlType type, const Block& block, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  kernels::dequantize_row(type, reinterpret_cast<const std::byte*>(&block), out.data(), n);
  return out;
}

// Packs 8 6-bit scales and mins the way Q4_K / Q5_K store them (inverse of k_scale_min).
void pack_scales(const int sc[8], const int m[8], uint8_t out[12]) {
  for (int j = 0; j < 4; ++j) {
    out[j] = static_cast<uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    out[j + 4] = static_cast<uint8_t>((m[j] & 63) | ((m[j + 4] >> 4) << 6));
    out[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | ((m[j + 4] & 15) << 4));
  }
}

}  // namespace

TEST_CASE("F16 and BF16 rows decode to their float values", "[kernels]") {
  const uint16_t f16[] = {0x3c00, 0xc000, 0x3555, 0x0001, 0x7bff};  // 1, -2, 0.333, 2^-24, 65504
  std::vector<float> out(5);
  kernels::dequantize_row(GgmlType::F16, reinterpret_cast<const std::byte*>(f16), out.data(), 5);
  CHECK(out == std::vector<float>{1.0f, -2.0f, 0.333251953125f, 0x1p-24f, 65504.0f});
  const uint16_t bf16[] = {0x3f80, 0xc040, 0x4049};  // 1, -3, 3.140625
  kernels::dequantize_row(GgmlType::BF16, reinterpret_cast<const std::byte*>(bf16), out.data(), 3);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -3.0f);
  CHECK(out[2] == 3.140625f);
}

TEST_CASE("Q8_0 block: x = d * q", "[kernels]") {
  kernels::BlockQ8_0 b{};
  b.d = kernels::f32_to_f16(0.5f);
  for (int i = 0; i < 32; ++i) b.qs[i] = static_cast<int8_t>(i * 8 - 128);
  const auto x = decode(GgmlType::Q8_0, b, 32);
  for (int i = 0; i < 32; ++i) CHECK(x[static_cast<size_t>(i)] == 0.5f * static_cast<float>(i * 8 - 128));
}

TEST_CASE("Q4_0 block: low nibbles are values 0-15, high nibbles 16-31, offset 8", "[kernels]") {
  kernels::BlockQ4_0 b{};
  b.d = kernels::f32_to_f16(2.0f);
  for (int i = 0; i < 16; ++i) b.qs[i] = static_cast<uint8_t>(i | ((15 - i) << 4));
  const auto x = decode(GgmlType::Q4_0, b, 32);
  for (int i = 0; i < 16; ++i) {
    CHECK(x[static_cast<size_t>(i)] == 2.0f * static_cast<float>(i - 8));
    CHECK(x[static_cast<size_t>(i + 16)] == 2.0f * static_cast<float>(15 - i - 8));
  }
}

TEST_CASE("Q5_0 block: a fifth bit per value from the 32-bit qh mask, offset 16", "[kernels]") {
  kernels::BlockQ5_0 b{};
  b.d = kernels::f32_to_f16(0.5f);
  const uint32_t qh = 0xA5F0C381u;  // bit j: fifth bit of value j
  std::memcpy(b.qh, &qh, 4);
  for (int i = 0; i < 16; ++i) b.qs[i] = static_cast<uint8_t>(i | ((i * 7 % 16) << 4));
  const auto x = decode(GgmlType::Q5_0, b, 32);
  for (int i = 0; i < 16; ++i) {
    const int bit_lo = static_cast<int>((qh >> i) & 1), bit_hi = static_cast<int>((qh >> (i + 16)) & 1);
    CHECK(x[static_cast<size_t>(i)] == 0.5f * static_cast<float>((i | (bit_lo << 4)) - 16));
    CHECK(x[static_cast<size_t>(i + 16)] == 0.5f * static_cast<float>(((i * 7 % 16) | (bit_hi << 4)) - 16));
  }
}

TEST_CASE("Q4_K block: 6-bit scales and mins per sub-block of 32", "[kernels]") {
  const int sc[8] = {1, 2, 3, 63, 17, 33, 48, 5};
  const int m[8] = {0, 7, 63, 1, 40, 2, 16, 62};
  kernels::BlockQ4K b{};
  b.d = kernels::f32_to_f16(0.25f);
  b.dmin = kernels::f32_to_f16(0.125f);
  pack_scales(sc, m, b.scales);
  for (int j = 0; j < 8; ++j) {
    uint8_t s, mm;
    kernels::k_scale_min(j, b.scales, s, mm);
    CHECK(s == sc[j]);
    CHECK(mm == m[j]);
  }
  // Value v of sub-block j: q = (v + j) % 16, stored in the low nibble for even j, high for odd.
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l)
      b.qs[32 * c + l] = static_cast<uint8_t>(((l + 2 * c) % 16) | (((l + 2 * c + 1) % 16) << 4));
  const auto x = decode(GgmlType::Q4_K, b, 256);
  for (int j = 0; j < 8; ++j)
    for (int l = 0; l < 32; ++l) {
      const float want = 0.25f * static_cast<float>(sc[j]) * static_cast<float>((l + j) % 16) -
                         0.125f * static_cast<float>(m[j]);
      CHECK(x[static_cast<size_t>(32 * j + l)] == want);
    }
}

TEST_CASE("Q5_K block: Q4_K plus a fifth bit per value in qh", "[kernels]") {
  const int sc[8] = {4, 9, 63, 1, 20, 31, 32, 60};
  const int m[8] = {3, 0, 12, 63, 5, 50, 33, 1};
  kernels::BlockQ5K b{};
  b.d = kernels::f32_to_f16(0.5f);
  b.dmin = kernels::f32_to_f16(1.0f);
  pack_scales(sc, m, b.scales);
  // q (0..31) of value l in sub-block j: (3l + j) % 32; low 4 bits in qs, bit 4 in bit j of qh[l].
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l) {
      const int lo = (3 * l + 2 * c) % 32, hi = (3 * l + 2 * c + 1) % 32;
      b.qs[32 * c + l] = static_cast<uint8_t>((lo & 15) | ((hi & 15) << 4));
      b.qh[l] = static_cast<uint8_t>(b.qh[l] | ((lo >> 4) << (2 * c)) | ((hi >> 4) << (2 * c + 1)));
    }
  const auto x = decode(GgmlType::Q5_K, b, 256);
  for (int j = 0; j < 8; ++j)
    for (int l = 0; l < 32; ++l) {
      const float want =
          0.5f * static_cast<float>(sc[j]) * static_cast<float>((3 * l + j) % 32) - static_cast<float>(m[j]);
      CHECK(x[static_cast<size_t>(32 * j + l)] == want);
    }
}

TEST_CASE("Q6_K block: 6-bit values minus 32 with int8 scales per 16", "[kernels]") {
  kernels::BlockQ6K b{};
  b.d = kernels::f32_to_f16(0.5f);
  for (int j = 0; j < 16; ++j) b.scales[j] = static_cast<int8_t>(j % 2 ? -(j + 1) : 3 * j + 1);
  // Value v (0..255) has q = (7v + 5) % 64. In each half of 128, value h*128 + 32k + l (k = 0..3)
  // keeps its low 4 bits in ql[h*64 + l + 32*(k%2)] (low nibble for k < 2, high for k >= 2) and
  // its top 2 bits in qh[h*32 + l] at bit 2k.
  auto q_of = [](int v) { return (7 * v + 5) % 64; };
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 32; ++l) {
        const int q = q_of(128 * h + 32 * k + l);
        uint8_t& lo = b.ql[64 * h + l + 32 * (k % 2)];
        lo = static_cast<uint8_t>(lo | ((q & 15) << (k < 2 ? 0 : 4)));
        b.qh[32 * h + l] = static_cast<uint8_t>(b.qh[32 * h + l] | ((q >> 4) << (2 * k)));
      }
  const auto x = decode(GgmlType::Q6_K, b, 256);
  for (int v = 0; v < 256; ++v)
    CHECK(x[static_cast<size_t>(v)] ==
          0.5f * static_cast<float>(b.scales[v / 16]) * static_cast<float>(q_of(v) - 32));
}

TEST_CASE("Q8_K block: x = d * q with an F32 scale", "[kernels]") {
  kernels::BlockQ8K b{};
  b.d = -0.75f;
  for (int i = 0; i < 256; ++i) b.qs[i] = static_cast<int8_t>(i - 128);
  const auto x = decode(GgmlType::Q8_K, b, 256);
  for (int i = 0; i < 256; ++i) CHECK(x[static_cast<size_t>(i)] == -0.75f * static_cast<float>(i - 128));
}

TEST_CASE("Rows of several blocks decode block after block", "[kernels]") {
  kernels::BlockQ8_0 b[2]{};
  b[0].d = kernels::f32_to_f16(1.0f);
  b[1].d = kernels::f32_to_f16(-1.0f);
  for (int i = 0; i < 32; ++i) b[0].qs[i] = b[1].qs[i] = static_cast<int8_t>(i);
  std::vector<float> x(64);
  kernels::dequantize_row(GgmlType::Q8_0, reinterpret_cast<const std::byte*>(b), x.data(), 64);
  CHECK(x[5] == 5.0f);
  CHECK(x[37] == -5.0f);
  CHECK(kernels::is_supported_weight_type(GgmlType::Q4_K));
  CHECK_FALSE(kernels::is_supported_weight_type(GgmlType::Q3_K));
}
