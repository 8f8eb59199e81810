// The hyper-parameters of a transformer read from GGUF metadata (`{arch}.block_count`,
// `.embedding_length`, `.attention.head_count[_kv]`, `.attention.key_length`, `.feed_forward_length`,
// `.context_length`, `.rope.*`, `.attention.layer_norm_rms_epsilon`) plus the vocabulary size from
// the token embedding. Supported architectures: llama (with experts: Mixtral), qwen2, qwen3, phi3
// (fused q/k/v and gate/up tensors, a sliding window on every layer), gemma2 and gemma3 (below)
// and the mixtures of experts qwen2moe and qwen3moe (below).
#pragma once

#include <expected>

#include "engine/error.h"
#include "engine/model/language_model.h"
#include "kernels/tensor.h"

namespace engine {

namespace gguf {
class GgufFile;
}

struct ModelConfig {
  ModelShape shape;
  float rms_norm_eps = 1e-5f;
  kernels::RopeStyle rope_style = kernels::RopeStyle::Normal;
  int32_t rope_dim = 0;  // rotated dimensions per head (`.rope.dimension_count`, default head_dim)
  float rope_freq_base = 10000.0f;
  float rope_freq_scale = 1.0f;  // 1 / linear scaling factor
  // LongRoPE (Phi-3-128k, Phi-3.5: rope_factors_long / rope_factors_short tensors): the long factors
  // serve contexts past rope_original_context, the short ones the rest; cos and sin are scaled by
  // rope_attn_factor (`rope.scaling.attn_factor`), as llama.cpp does.
  int32_t rope_original_context = 0;  // `rope.scaling.original_context_length` (default: trained context)
  float rope_attn_factor = 1.0f;
  bool qk_norm = false;  // per-head RMSNorm of q and k before rope (qwen3, gemma3)
  // (the sliding window and which layers slide: shape.sliding_window, shape.window_pattern)
  // Rope of the sliding layers where it differs from the others' (gemma3: base 10000, no scaling;
  // 0: the same as the other layers).
  float rope_freq_base_window = 0.0f;
  float rope_freq_scale_window = 1.0f;

  // Gemma 2 and 3: x = token_embd[t] * embedding_scale; each block's attention and FFN outputs
  // RMS-normalised again before their residual add; gelu(gate) * up; attention scores and the
  // final logits soft-capped (cap * tanh(x / cap); Gemma 2 only); queries scaled by query_scale.
  float embedding_scale = 1.0f;
  bool post_norms = false;
  bool gelu_ffn = false;
  float attn_softcap = 0.0f;   // 0: none
  float final_softcap = 0.0f;  // 0: none
  float query_scale = 0.0f;    // 0: 1 / sqrt(head_dim)

  // Mixture of experts (a llama with `llama.expert_count` is Mixtral; qwen2moe, qwen3moe): each
  // row's FFN is Σ w_i · expert_i(h) over the `experts_used` experts of highest router probability
  // (softmax of h · ffn_gate_inpᵀ over all experts), w_i those probabilities, renormalised to sum 1
  // where normalize_expert_weights (Mixtral, qwen3moe; not qwen2moe). qwen2moe adds a shared expert
  // of width shared_ffn, scaled by sigmoid(h · ffn_gate_inp_shexp).
  int32_t num_experts = 0;  // 0: a dense FFN
  int32_t experts_used = 0;
  int32_t expert_ffn = 0;  // each expert's FFN width
  int32_t shared_ffn = 0;  // 0: no shared expert
  bool normalize_expert_weights = false;

  bool is_moe() const { return num_experts > 0; }
};

// The config of the model in `file`, or an Error naming the file and the missing or bad key.
std::expected<ModelConfig, Error> read_model_config(const gguf::GgufFile& file);

}  // namespace engine
