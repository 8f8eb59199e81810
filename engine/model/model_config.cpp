// Reading and checking a model's hyper-parameters from GGUF metadata.
#include "engine/model/model_config.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

#include "engine/gguf/gguf_file.h"

namespace engine {

namespace {

std::unexpected<Error> fail(const gguf::GgufFile& file, const std::string& what) {
  return std::unexpected(Error{fmt::format("{}: {}", file.path(), what)});
}

}  // namespace

std::expected<ModelConfig, Error> read_model_config(const gguf::GgufFile& file) {
  const auto arch = file.get_string("general.architecture");
  if (!arch) return fail(file, "missing metadata key 'general.architecture'");
  if (*arch != "llama" && *arch != "qwen2" && *arch != "qwen3")
    return fail(file,
                fmt::format("architecture '{}' is not supported (supported: llama, qwen2, qwen3)", *arch));
  const std::string p = *arch + ".";

  // A required positive integer key.
  std::string missing;
  auto need_int = [&](const std::string& key) -> int32_t {
    const auto v = file.get_int(p + key);
    if (!v || *v <= 0 || *v > (1 << 30)) {
      if (missing.empty()) missing = p + key;
      return 0;
    }
    return static_cast<int32_t>(*v);
  };

  ModelConfig c;
  ModelShape& s = c.shape;
  s.arch = *arch;
  s.num_layers = need_int("block_count");
  s.embedding_dim = need_int("embedding_length");
  s.num_heads = need_int("attention.head_count");
  s.ffn_dim = need_int("feed_forward_length");
  s.context_length = need_int("context_length");
  if (!missing.empty()) return fail(file, fmt::format("missing or invalid metadata key '{}'", missing));
  s.num_kv_heads =
      file.get_int(p + "attention.head_count_kv") ? need_int("attention.head_count_kv") : s.num_heads;
  s.head_dim = file.get_int(p + "attention.key_length") ? need_int("attention.key_length")
                                                        : s.embedding_dim / s.num_heads;
  if (!missing.empty()) return fail(file, fmt::format("missing or invalid metadata key '{}'", missing));
  if (s.num_heads % s.num_kv_heads != 0)
    return fail(file, fmt::format("head_count {} is not a multiple of head_count_kv {}", s.num_heads,
                                  s.num_kv_heads));
  if (const auto v = file.get_int(p + "attention.value_length"); v && *v != s.head_dim)
    return fail(file, fmt::format("attention.value_length {} differs from key_length {} (not supported)", *v,
                                  s.head_dim));

  const auto eps = file.get_float(p + "attention.layer_norm_rms_epsilon");
  if (!eps || !(*eps > 0))
    return fail(file, fmt::format("missing or invalid metadata key '{}attention.layer_norm_rms_epsilon'", p));
  c.rms_norm_eps = static_cast<float>(*eps);

  c.rope_style = *arch == "llama" ? kernels::RopeStyle::Normal : kernels::RopeStyle::Neox;
  c.qk_norm = *arch == "qwen3";
  c.rope_freq_base = static_cast<float>(file.get_float(p + "rope.freq_base").value_or(10000.0));
  c.rope_dim = file.get_int(p + "rope.dimension_count") ? need_int("rope.dimension_count") : s.head_dim;
  if (!missing.empty()) return fail(file, fmt::format("missing or invalid metadata key '{}'", missing));
  if (c.rope_dim > s.head_dim || c.rope_dim % 2 != 0)
    return fail(file, fmt::format("rope.dimension_count {} must be even and at most the head size {}",
                                  c.rope_dim, s.head_dim));
  if (!(c.rope_freq_base > 0)) return fail(file, "rope.freq_base must be positive");

  // Rope scaling: none, or linear (positions divided by `rope.scaling.factor`, or the older
  // `rope.scale_linear`, as llama.cpp reads them). Llama 3.1's scheme comes as the rope_freqs.weight
  // tensor instead (see model_weights.h).
  const std::string scaling = file.get_string(p + "rope.scaling.type").value_or("none");
  if (scaling != "none" && scaling != "linear")
    return fail(file, fmt::format("rope scaling '{}' is not supported (supported: none, linear)", scaling));
  const double factor = file.get_float(p + "rope.scaling.factor")
                            .value_or(file.get_float(p + "rope.scale_linear").value_or(0.0));
  if (factor < 0 || !std::isfinite(factor))
    return fail(file, fmt::format("invalid rope scaling factor {}", factor));
  if (factor > 0) c.rope_freq_scale = static_cast<float>(1.0 / factor);

  // The vocabulary is the token embedding's row count.
  const auto* embd = file.find_tensor("token_embd.weight");
  if (!embd || embd->dims.size() != 2) return fail(file, "missing 2-D tensor 'token_embd.weight'");
  s.vocab_size = static_cast<int32_t>(embd->dims[1]);
  return c;
}

}  // namespace engine
