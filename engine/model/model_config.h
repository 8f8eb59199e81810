// The hyper-parameters of a transformer read from GGUF metadata (`{arch}.block_count`,
// `.embedding_length`, `.attention.head_count[_kv]`, `.attention.key_length`, `.feed_forward_length`,
// `.context_length`, `.rope.*`, `.attention.layer_norm_rms_epsilon`) plus the vocabulary size from
// the token embedding. Supported architectures: llama, qwen2, qwen3, phi3 (fused q/k/v and
// gate/up tensors, a sliding window on every layer).
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
  bool qk_norm = false;          // per-head RMSNorm of q and k before rope (qwen3)
  int32_t sliding_window = 0;    // > 0: each query sees its last `sliding_window` positions (phi3)
};

// The config of the model in `file`, or an Error naming the file and the missing or bad key.
std::expected<ModelConfig, Error> read_model_config(const gguf::GgufFile& file);

}  // namespace engine
