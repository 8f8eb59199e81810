// CPU rotary position embedding, "normal" (adjacent pairs) and "neox" (half-split pairs) styles,
// with optional per-frequency divisors (Llama 3.1 rope_freqs, LongRoPE's factors), linear position
// scaling and LongRoPE's attention factor (cos and sin multiplied by it, as ggml does).
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/cpu/cpu_ops.h"

namespace kernels {

void rope(std::span<float> x, std::span<const int32_t> positions, int32_t num_heads, int32_t head_dim,
          const RopeParams& p) {
  assert(x.size() == positions.size() * static_cast<size_t>(num_heads) * head_dim);
  assert(p.rot_dim > 0 && p.rot_dim <= head_dim && p.rot_dim % 2 == 0);
  const int32_t half = p.rot_dim / 2;
  // inv_freq[i] = base^(-2i / rot_dim) * freq_scale / factor_i
  std::vector<double> inv_freq(static_cast<size_t>(half));
  for (int32_t i = 0; i < half; ++i) {
    double f = std::pow(static_cast<double>(p.freq_base), -2.0 * i / p.rot_dim) * p.freq_scale;
    if (p.freq_factors != nullptr) f /= p.freq_factors[i];
    inv_freq[static_cast<size_t>(i)] = f;
  }
  std::vector<float> cos_t(static_cast<size_t>(half)), sin_t(static_cast<size_t>(half));
  for (size_t r = 0; r < positions.size(); ++r) {
    for (int32_t i = 0; i < half; ++i) {
      const double theta = positions[r] * inv_freq[static_cast<size_t>(i)];
      cos_t[static_cast<size_t>(i)] = static_cast<float>(std::cos(theta)) * p.attn_factor;
      sin_t[static_cast<size_t>(i)] = static_cast<float>(std::sin(theta)) * p.attn_factor;
    }
    for (int32_t h = 0; h < num_heads; ++h) {
      float* v = x.data() + (r * static_cast<size_t>(num_heads) + static_cast<size_t>(h)) * head_dim;
      for (int32_t i = 0; i < half; ++i) {
        // The pair rotated by theta_i: (2i, 2i+1) for normal, (i, i + rot_dim/2) for neox.
        const int32_t a = p.style == RopeStyle::Normal ? 2 * i : i;
        const int32_t b = p.style == RopeStyle::Normal ? 2 * i + 1 : i + half;
        const float c = cos_t[static_cast<size_t>(i)], s = sin_t[static_cast<size_t>(i)];
        const float x0 = v[a], x1 = v[b];
        v[a] = x0 * c - x1 * s;
        v[b] = x0 * s + x1 * c;
      }
    }
  }
}

}  // namespace kernels
