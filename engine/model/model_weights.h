// The tensors of a llama / qwen2 / qwen3 / phi3 / gemma2 GGUF bound to views for the kernels, each checked
// for presence, shape (ggml order: [columns, rows]) and type. Norm weights and biases must be F32; matrices
// may be any type the kernels support. Views point into the map, except matrices the CPU matmul reads faster
// in another layout (kernels::repacked_bytes): those are repacked once here into memory the ModelWeights owns
// (the token embedding keeps its original for lookups). Phi-3's fused attn_qkv and ffn_up (gate rows, then up
// rows) are bound as views of their parts.
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
  kernels::MatrixView ffn_gate;           // [ffn, embd]
  kernels::MatrixView ffn_up;             // [ffn, embd]
  kernels::MatrixView ffn_down;           // [embd, ffn]
  std::span<const float> ffn_post_norm;   // [embd] or empty (gemma2: post_ffw_norm)
};

struct ModelWeights {
  kernels::MatrixView token_embd;  // [vocab, embd]
  std::vector<LayerWeights> layers;
  std::span<const float> output_norm;  // [embd]
  kernels::MatrixView output;          // [vocab, embd]: output.weight, or token_embd when tied
  std::span<const float> rope_freqs;   // [rope_dim / 2] frequency divisors, or empty
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
