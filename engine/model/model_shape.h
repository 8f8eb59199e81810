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
  int32_t sliding_window = 0;  // > 0: each query of a sliding layer sees its last `sliding_window` positions
  // Which layers slide: all (0), or those with l % window_pattern < window_pattern - 1, the others
  // seeing every position (gemma2: 2, layers 0, 2, 4...; gemma3: 6, five of every six).
  int32_t window_pattern = 0;

  // The sliding window of layer `l` (0: none).
  int32_t window_of(int32_t l) const {
    return window_pattern == 0 || l % window_pattern < window_pattern - 1 ? sliding_window : 0;
  }
  // Layers that slide a window, and layers that see every position.
  int32_t num_sliding_layers() const {
    int32_t n = 0;
    for (int32_t l = 0; l < num_layers; ++l) n += window_of(l) > 0 ? 1 : 0;
    return n;
  }
  int32_t num_global_layers() const { return num_layers - num_sliding_layers(); }
};

}  // namespace engine
