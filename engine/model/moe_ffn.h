// The mixture-of-experts FFN of a step (Mixtral, qwen2moe, qwen3moe): the router picks each row's
// experts, the step's rows are grouped by expert so that each expert's three matmuls run once over
// all the rows routed to it (the one-forward-pass design holds: one matmul per expert and step, not
// per row), and each row's expert outputs are mixed back by its routing weights.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "kernels/ops.h"

namespace engine {

class MoeFfn {
 public:
  // out[n, embd] = the layer's mixture of experts applied to h[n, embd] (qwen2moe: plus its gated
  // shared expert). Each row's result depends only on that row, never on the others of the step.
  void forward(kernels::Backend& be, const ModelConfig& config, const MoeWeights& w, std::span<const float> h,
               int64_t n, std::span<float> out);

 private:
  // Fills src_rows_ (the step's rows in expert order, each row once per expert it chose), first_
  // (expert e's rows are [first_[e], first_[e + 1]) of them) and slots_ (row r's s-th choice is
  // routed row slots_[r * k + s]) from ids_.
  void group_by_expert(int32_t num_experts, int64_t n, int32_t k);

  std::vector<int32_t> ids_, src_rows_, first_, slots_;
  std::vector<float> weights_;
  // Device scratch: router logits, routed inputs, expert gate / up / down, shared gate / up / down, shared
  // gate logit.
  std::array<kernels::DeviceBuffer, 9> scratch_;
};

}  // namespace engine
