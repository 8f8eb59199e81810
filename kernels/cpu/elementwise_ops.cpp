// CPU rmsnorm, swiglu, geglu, scale, add, add_bias, softmax and embedding: plain loops (memory-bound, cheap
// next to matmul and attention, and auto-vectorised where the compiler can).
#include <array>
#include <cassert>
#include <cmath>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/half.h"
#include "kernels/quant/dequant.h"

namespace kernels {

void rmsnorm(std::span<const float> x, std::span<const float> weight, int64_t dim, float eps,
             std::span<float> out) {
  assert(static_cast<int64_t>(weight.size()) == dim && x.size() % static_cast<size_t>(dim) == 0);
  assert(out.size() == x.size());
  const int64_t n = static_cast<int64_t>(x.size()) / dim;
  for (int64_t r = 0; r < n; ++r) {
    const float* xr = x.data() + r * dim;
    float* yr = out.data() + r * dim;
    double sum = 0;
    for (int64_t i = 0; i < dim; ++i) sum += static_cast<double>(xr[i]) * xr[i];
    const float scale = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(dim)) + eps);
    for (int64_t i = 0; i < dim; ++i) yr[i] = (xr[i] * scale) * weight[i];
  }
}

void swiglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) {
  assert(gate.size() == up.size() && out.size() == gate.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const float g = gate[i];
    out[i] = g / (1.0f + std::exp(-g)) * up[i];
  }
}

namespace {

// GELU's tanh form 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x³))) of every F16 value x, rounded to
// F16, indexed by x's bits: ggml's table, and a lookup instead of a tanh per element.
const std::array<uint16_t, 65536>& gelu_f16_table() {
  static const auto table = [] {
    constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f, kCoef = 0.044715f;
    std::array<uint16_t, 65536> t{};
    for (size_t i = 0; i < t.size(); ++i) {
      const float x = f16_to_f32(static_cast<uint16_t>(i));
      t[i] = f32_to_f16(0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kCoef * x * x))));
    }
    return t;
  }();
  return table;
}

}  // namespace

void geglu(std::span<const float> gate, std::span<const float> up, std::span<float> out) {
  assert(gate.size() == up.size() && out.size() == gate.size());
  const std::array<uint16_t, 65536>& table = gelu_f16_table();
  for (size_t i = 0; i < out.size(); ++i) {
    const float g = gate[i];
    const float gelu = g <= -10.0f ? 0.0f : g >= 10.0f ? g : f16_to_f32(table[f32_to_f16(g)]);
    out[i] = gelu * up[i];
  }
}

void scale(std::span<float> x, float factor) {
  for (float& v : x) v *= factor;
}

void add(std::span<const float> a, std::span<const float> b, std::span<float> out) {
  assert(a.size() == b.size() && out.size() == a.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = a[i] + b[i];
}

void add_bias(std::span<float> x, std::span<const float> bias) {
  assert(!bias.empty() && x.size() % bias.size() == 0);
  for (size_t r = 0; r < x.size(); r += bias.size())
    for (size_t i = 0; i < bias.size(); ++i) x[r + i] += bias[i];
}

void softmax(std::span<float> x) {
  if (x.empty()) return;
  float max = x[0];
  for (float v : x) max = v > max ? v : max;
  double sum = 0;
  for (float& v : x) {
    v = std::exp(v - max);
    sum += v;
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (float& v : x) v *= inv;
}

void embedding(const MatrixView& table, std::span<const int32_t> ids, std::span<float> out) {
  assert(out.size() == ids.size() * static_cast<size_t>(table.cols));
  for (size_t i = 0; i < ids.size(); ++i) {
    assert(ids[i] >= 0 && ids[i] < table.rows);
    dequantize_row(table.type, table.row(ids[i]), out.data() + i * static_cast<size_t>(table.cols),
                   table.cols);
  }
}

}  // namespace kernels
