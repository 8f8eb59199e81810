// Test helpers: random weight matrices of any supported ggml type (random quant bytes with sane
// scales, so every bit pattern of the payload is exercised) and random activations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/half.h"
#include "kernels/quant/dot_blocks.h"
#include "kernels/quant/ggml_type.h"

namespace kernels::test {

inline std::vector<float> random_floats(size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// `rows` rows of `cols` values of `type`, packed.
inline std::vector<std::byte> random_weights(GgmlType type, int64_t rows, int64_t cols, std::mt19937& rng) {
  const size_t bytes = row_bytes(type, cols) * static_cast<size_t>(rows);
  std::vector<std::byte> data(bytes);
  std::uniform_real_distribution<float> scale(0.002f, 0.02f);
  auto half = [&] { return f32_to_f16(scale(rng)); };
  if (type == GgmlType::F32 || type == GgmlType::F16 || type == GgmlType::BF16) {
    const auto values = random_floats(static_cast<size_t>(rows * cols), rng, 0.5f);
    for (size_t i = 0; i < values.size(); ++i) {
      if (type == GgmlType::F32) std::memcpy(data.data() + 4 * i, &values[i], 4);
      const uint16_t h = type == GgmlType::F16 ? f32_to_f16(values[i]) : f32_to_bf16(values[i]);
      if (type != GgmlType::F32) std::memcpy(data.data() + 2 * i, &h, 2);
    }
    return data;
  }
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& b : data) b = static_cast<std::byte>(byte(rng));
  const size_t block_bytes = traits(type).block_bytes;
  for (size_t at = 0; at < bytes; at += block_bytes) {
    std::byte* p = data.data() + at;
    switch (type) {
      case GgmlType::Q8_0:
        reinterpret_cast<BlockQ8_0*>(p)->d = half();
        break;
      case GgmlType::Q4_0:
        reinterpret_cast<BlockQ4_0*>(p)->d = half();
        break;
      case GgmlType::Q5_0:
        reinterpret_cast<BlockQ5_0*>(p)->d = half();
        break;
      case GgmlType::Q4_K:
        reinterpret_cast<BlockQ4K*>(p)->d = half();
        reinterpret_cast<BlockQ4K*>(p)->dmin = half();
        break;
      case GgmlType::Q5_K:
        reinterpret_cast<BlockQ5K*>(p)->d = half();
        reinterpret_cast<BlockQ5K*>(p)->dmin = half();
        break;
      case GgmlType::Q6_K:
        reinterpret_cast<BlockQ6K*>(p)->d = half();
        break;
      default:
        break;
    }
  }
  return data;
}

// The weight types the kernels support.
inline constexpr GgmlType kWeightTypes[] = {GgmlType::F32,  GgmlType::F16,  GgmlType::BF16,
                                            GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_0,
                                            GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K};

}  // namespace kernels::test
