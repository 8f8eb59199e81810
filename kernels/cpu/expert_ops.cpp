// CPU routing and mixing of a mixture of experts: plain loops over a step's rows (the expert
// matmuls themselves are kernels::matmul on each expert's rows).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/cpu/cpu_ops.h"

namespace kernels {

void select_experts(std::span<const float> logits, int32_t num_experts, int32_t k, bool normalize,
                    std::span<int32_t> ids, std::span<float> weights) {
  assert(num_experts > 0 && k > 0 && k <= num_experts &&
         logits.size() % static_cast<size_t>(num_experts) == 0);
  const size_t n = logits.size() / static_cast<size_t>(num_experts);
  assert(ids.size() == n * static_cast<size_t>(k) && weights.size() == ids.size());
  std::vector<float> p(static_cast<size_t>(num_experts));
  std::vector<bool> taken(static_cast<size_t>(num_experts));
  for (size_t r = 0; r < n; ++r) {
    std::copy_n(logits.begin() + static_cast<ptrdiff_t>(r * p.size()), p.size(), p.begin());
    softmax(p);
    std::fill(taken.begin(), taken.end(), false);
    int32_t* row_ids = ids.data() + r * static_cast<size_t>(k);
    float* row_weights = weights.data() + r * static_cast<size_t>(k);
    double sum = 0;
    for (int32_t s = 0; s < k; ++s) {
      int32_t best = -1;
      for (int32_t e = 0; e < num_experts; ++e)
        if (!taken[static_cast<size_t>(e)] &&
            (best < 0 || p[static_cast<size_t>(e)] > p[static_cast<size_t>(best)]))
          best = e;
      taken[static_cast<size_t>(best)] = true;
      row_ids[s] = best;
      row_weights[s] = p[static_cast<size_t>(best)];
      sum += row_weights[s];
    }
    if (normalize)
      for (int32_t s = 0; s < k; ++s) row_weights[s] /= static_cast<float>(sum);
  }
}

void combine_experts(std::span<const float> src, std::span<const int32_t> slots,
                     std::span<const float> weights, int32_t k, int64_t cols, std::span<float> out) {
  assert(k > 0 && slots.size() == weights.size() && slots.size() % static_cast<size_t>(k) == 0);
  const size_t n = slots.size() / static_cast<size_t>(k), width = static_cast<size_t>(cols);
  assert(out.size() == n * width);
  for (size_t r = 0; r < n; ++r) {
    float* y = out.data() + r * width;
    for (int32_t s = 0; s < k; ++s) {
      const size_t i = r * static_cast<size_t>(k) + static_cast<size_t>(s);
      assert(slots[i] >= 0 && (static_cast<size_t>(slots[i]) + 1) * width <= src.size());
      const float* x = src.data() + static_cast<size_t>(slots[i]) * width;
      const float w = weights[i];
      if (s == 0)
        for (size_t c = 0; c < width; ++c) y[c] = x[c] * w;
      else
        for (size_t c = 0; c < width; ++c) y[c] += x[c] * w;
    }
  }
}

void add_sigmoid_gated(std::span<const float> x, std::span<const float> gate, std::span<float> out) {
  assert(!gate.empty() && x.size() == out.size() && x.size() % gate.size() == 0);
  const size_t width = x.size() / gate.size();
  for (size_t r = 0; r < gate.size(); ++r) {
    const float g = 1.0f / (1.0f + std::exp(-gate[r]));
    for (size_t c = 0; c < width; ++c) out[r * width + c] += x[r * width + c] * g;
  }
}

}  // namespace kernels
