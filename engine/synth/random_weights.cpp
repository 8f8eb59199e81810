// SplitMix64 streams; one 64-bit draw gives four 16-bit uniforms whose sum is close to normal
// (Irwin-Hall with n = 4), so a value costs one multiply-xorshift mix and no transcendental call.
#include "engine/synth/random_weights.h"

#include <cmath>

namespace engine::synth {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// SplitMix64's output function.
inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t tensor_key(uint64_t seed, std::string_view tensor_name) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : tensor_name) h = (h ^ c) * 0x100000001B3ull;
  return mix(seed + kGolden) ^ mix(h);
}

void fill_normal_row(uint64_t key, int64_t row, float stddev, float* out, int64_t n) {
  // Sum of four uniform 0..65535 draws: mean 131070, variance 4 * (65536^2 - 1) / 12.
  constexpr double kMean = 131070.0;
  static const double kSd = std::sqrt(4.0 * (65536.0 * 65536.0 - 1.0) / 12.0);
  const float scale = static_cast<float>(stddev / kSd);
  const uint64_t state = mix(key ^ mix(static_cast<uint64_t>(row) + kGolden));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t x = mix(state + static_cast<uint64_t>(i + 1) * kGolden);
    const int64_t sum =
        static_cast<int64_t>((x & 0xFFFF) + ((x >> 16) & 0xFFFF) + ((x >> 32) & 0xFFFF) + (x >> 48));
    out[i] = static_cast<float>(static_cast<double>(sum) - kMean) * scale;
  }
}

}  // namespace engine::synth
