// The network's hyper-parameters as the serving core, the planner and callers of engine/api.h
// see them (read from GGUF metadata).
#pragma once

#include <cstdint>
#include <string>

namespace engine {

struct ModelShape {
  std::string
      arch;  // general.architecture: "llama", "qwen2", "qwen3", "phi3", "gemma2", "qwen2moe", "qwen3moe"
  int32_t num_layers = 0;
  int32_t embedding_dim = 0;  // n_embd
  int32_t num_heads = 0;
  int32_t num_kv_heads = 0;
  int32_t head_dim = 0;
  int32_t ffn_dim = 0;  // feed_forward_length (a mixture's expert widths: ModelConfig)
  int32_t vocab_size = 0;
  int32_t context_length = 0;  // the model's trained context
};

}  // namespace engine
