// The mixture-of-experts FFN, as llama.cpp's build_moe_ffn computes it:
//   p = softmax(h · routerᵀ); E = the k experts of highest p; w = p[E] (/ Σ p[E] where normalised)
//   out = Σ_{s<k} w_s · down_{E_s}(silu(gate_{E_s} · h) * (up_{E_s} · h))
// and for qwen2moe out += sigmoid(h · shared_gate) · shared(h).
#include "engine/model/moe_ffn.h"

#include <algorithm>

#include "engine/model/device_scratch.h"

namespace engine {

void MoeFfn::group_by_expert(int32_t num_experts, int64_t n, int32_t k) {
  const size_t routed = static_cast<size_t>(n) * static_cast<size_t>(k);
  first_.assign(static_cast<size_t>(num_experts) + 1, 0);
  for (size_t i = 0; i < routed; ++i) ++first_[static_cast<size_t>(ids_[i]) + 1];
  for (size_t e = 0; e < static_cast<size_t>(num_experts); ++e) first_[e + 1] += first_[e];
  std::vector<int32_t> next(first_.begin(), first_.end() - 1);
  src_rows_.resize(routed);
  slots_.resize(routed);
  for (size_t i = 0; i < routed; ++i) {
    const int32_t j = next[static_cast<size_t>(ids_[i])]++;
    src_rows_[static_cast<size_t>(j)] = static_cast<int32_t>(i / static_cast<size_t>(k));
    slots_[i] = j;
  }
}

void MoeFfn::forward(kernels::Backend& be, const ModelConfig& c, const MoeWeights& w,
                     std::span<const float> h, int64_t n, std::span<float> out) {
  const int64_t embd = c.shape.embedding_dim, width = c.expert_ffn;
  const int32_t k = c.experts_used;
  const int64_t routed = n * k;
  auto buf = [&](size_t i, int64_t count) { return reserve(be, scratch_[i], count); };

  // ids, weights = each row's k experts and their weights
  const std::span<float> logits = buf(0, n * c.num_experts);
  be.matmul(w.router, h, n, logits);
  ids_.resize(static_cast<size_t>(routed));
  weights_.resize(static_cast<size_t>(routed));
  be.select_experts(logits, c.num_experts, k, c.normalize_expert_weights, ids_, weights_);

  // x = h[src_rows]: every row once per expert it chose, the rows of one expert together
  group_by_expert(c.num_experts, n, k);
  const std::span<float> x = buf(1, routed * embd), gate = buf(2, routed * width),
                         up = buf(3, routed * width), down = buf(4, routed * embd);
  be.gather_rows(h, src_rows_, embd, x);
  // per expert e over its rows: gate = x·Gₑᵀ, up = x·Uₑᵀ; then gate = silu(gate) * up; down = gate·Dₑᵀ
  const auto each_expert = [&](auto&& run) {
    for (size_t e = 0; e < w.experts.size(); ++e)
      if (const int64_t rows = first_[e + 1] - first_[e]; rows > 0) run(w.experts[e], first_[e], rows);
  };
  each_expert([&](const FfnWeights& f, int64_t first, int64_t rows) {
    const kernels::MatmulTarget gate_up[] = {{f.gate, gate.subspan(first * width, rows * width)},
                                             {f.up, up.subspan(first * width, rows * width)}};
    be.matmul_group(gate_up, x.subspan(first * embd, rows * embd), rows);
  });
  be.swiglu(gate, up, gate);
  each_expert([&](const FfnWeights& f, int64_t first, int64_t rows) {
    be.matmul(f.down, gate.subspan(first * width, rows * width), rows,
              down.subspan(first * embd, rows * embd));
  });
  // out[r] = Σ_s weights[r, s] · down[slots[r, s]]
  be.combine_experts(down, slots_, weights_, k, embd, out);

  if (c.shared_ffn == 0) return;
  // qwen2moe: out += sigmoid(h·shared_gateᵀ) · down_s(silu(h·gate_sᵀ) * (h·up_sᵀ))
  const int64_t shared = c.shared_ffn;
  const std::span<float> s_gate = buf(5, n * shared), s_up = buf(6, n * shared), s_down = buf(7, n * embd),
                         s_logit = buf(8, n);
  const kernels::MatmulTarget gate_up[] = {{w.shared.gate, s_gate}, {w.shared.up, s_up}};
  be.matmul_group(gate_up, h, n);
  be.swiglu(s_gate, s_up, s_gate);
  be.matmul(w.shared.down, s_gate, n, s_down);
  be.matmul(w.shared_gate, h, n, s_logit);
  be.add_sigmoid_gated(s_down, s_logit, out);
}

}  // namespace engine
