// The tensors of a llama / qwen2 / qwen3 / phi3 / gemma2 / qwen2moe / qwen3moe GGUF bound to views for the
// kernels, each checked for presence, shape (ggml order: [columns, rows]) and type. Norm weights and biases
// must be F32; matrices may be any type the kernels support. Views point into the map, except matrices the
// CPU matmul reads faster in another layout (kernels::repacked_bytes): those are repacked once here into
// memory the ModelWeights owns (the token embedding keeps its original for lookups). Phi-3's fused attn_qkv
// and ffn_up (gate rows, then up rows) are bound as views of their parts; so is each expert of a mixture's
// stacked 3-D expert tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <memory>
#include <span>
#include <vector>

#include "engine/error.h"
#include "engine/model/model_config.h"
#include "kernels/tensor.h"

namespace engine {

namespace gguf {
class GgufFile;
}

// One FFN of SwiGLU form: down · (silu(gate · h) * (up · h)).
struct FfnWeights {
  kernels::MatrixView gate;  // [width, embd]
  kernels::MatrixView up;    // [width, embd]
  kernels::MatrixView down;  // [embd, width]
};

// A mixture-of-experts FFN (ModelConfig::num_experts > 0).
struct MoeWeights {
  kernels::MatrixView router;       // [experts, embd]: ffn_gate_inp
  std::vector<FfnWeights> experts;  // views of ffn_{gate,up,down}_exps, one per expert
  FfnWeights shared;                // qwen2moe: ffn_*_shexp, else empty
  kernels::MatrixView shared_gate;  // [1, embd] qwen2moe: ffn_gate_inp_shexp, else empty
};

struct LayerWeights {
  std::span<const float> attn_norm;       // [embd]
  kernels::MatrixView attn_q;             // [heads * head_dim, embd]
  kernels::MatrixView attn_k;             // [kv_heads * head_dim, embd]
  kernels::MatrixView attn_v;             // [kv_heads * head_dim, embd]
  std::span<const float> q_bias;          // [heads * head_dim] or empty (qwen2 has them)
  std::span<const float> k_bias;          // [kv_heads * head_dim] or empty
  std::span<const float> v_bias;          // [kv_heads * head_dim] or empty
  std::span<const float> q_norm;          // [head_dim] or empty (qwen3)
  std::span<const float> k_norm;          // [head_dim] or empty (qwen3)
  kernels::MatrixView attn_output;        // [embd, heads * head_dim]
  std::span<const float> attn_post_norm;  // [embd] or empty (gemma2: post_attention_norm)
  std::span<const float> ffn_norm;        // [embd]
  FfnWeights ffn;                         // [ffn, embd] gate and up, [embd, ffn] down; empty with experts
  MoeWeights moe;                         // the experts, where the model has them
  std::span<const float> ffn_post_norm;   // [embd] or empty (gemma2: post_ffw_norm)
};

struct ModelWeights {
  kernels::MatrixView token_embd;  // [vocab, embd]
  std::vector<LayerWeights> layers;
  std::span<const float> output_norm;         // [embd]
  kernels::MatrixView output;                 // [vocab, embd]: output.weight, or token_embd when tied
  std::span<const float> rope_freqs;          // [rope_dim / 2] frequency divisors in use, or empty
  std::span<const float> rope_factors_long;   // LongRoPE: [rope_dim / 2] divisors past the original context
  std::span<const float> rope_factors_short;  // and within it (Transformer::from_gguf picks one)
  std::vector<std::shared_ptr<std::byte[]>> repacked;  // what repacked views point into
};

// Bytes bind_weights allocates beyond the file's tensors: the repacked copy of a tied output
// (token_embd keeps its file layout for the lookups); 0 when nothing is tied or repacked. The
// other repacked matrices replace their file pages, which are then never read again.
uint64_t weight_copy_bytes(const gguf::GgufFile& file);

// Binds every tensor `config` calls for, or returns an Error naming the tensor and what is wrong
// (missing; shape found vs expected; unsupported or non-F32 type).
std::expected<ModelWeights, Error> bind_weights(const gguf::GgufFile& file, const ModelConfig& config);

}  // namespace engine
