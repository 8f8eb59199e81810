// Counter-based draws: value i of a row is wyrand's 64x64->128-bit multiply-fold of the row's
// state plus i times an odd constant (one multiply per value, no transcendental call); its four
// 16-bit fields sum to an approximately normal value (Irwin-Hall with n = 4). SplitMix64 derives
// the row states.
#include "engine/tools/synth/random_weights.h"

#include <cmath>

namespace engine::synth {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kWyP0 = 0xa0761d6478bd642full;
constexpr uint64_t kWyP1 = 0xe7037ed1a0b428dbull;
__extension__ typedef unsigned __int128 u128;

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
  constexpr int32_t kMean = 131070;
  static const double kSd = std::sqrt(4.0 * (65536.0 * 65536.0 - 1.0) / 12.0);
  const float scale = static_cast<float>(stddev / kSd);
  const uint64_t state = mix(key ^ mix(static_cast<uint64_t>(row) + kGolden));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t c = state + static_cast<uint64_t>(i + 1) * kWyP0;
    const u128 m = static_cast<u128>(c) * (c ^ kWyP1);
    const uint64_t x = static_cast<uint64_t>(m >> 64) ^ static_cast<uint64_t>(m);
    const auto sum =
        static_cast<int32_t>((x & 0xFFFF) + ((x >> 16) & 0xFFFF) + ((x >> 32) & 0xFFFF) + (x >> 48));
    out[i] = static_cast<float>(sum - kMean) * scale;
  }
}

}  // namespace engine::synth
