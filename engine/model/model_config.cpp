// Reading and checking a model's hyper-parameters from GGUF metadata. Every number the forward
// pass uses is checked finite and in a sane range here, at load, and a bad one is refused naming
// its key and value: a zero head count, a NaN epsilon or an absurd context would otherwise reach
// the kernels (a division by zero, NaN logits) or an allocation (std::bad_alloc).
#include "engine/model/model_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "engine/gguf/gguf_file.h"

namespace engine {

namespace {

// The ranges accepted: wide enough for every published model (llama 3.1 405B has 126 layers,
// embedding 16384, 128 heads; Llama 4 Scout a 10M context; rope bases reach 1e8), narrow enough
// that the sizes derived from them fit their types.
constexpr int64_t kMaxLayers = 1024;
constexpr int64_t kMaxEmbedding = 1 << 17;
constexpr int64_t kMaxHeads = 1 << 12;
constexpr int64_t kMaxHeadDim = 1 << 12;
constexpr int64_t kMaxFfn = 1 << 20;
constexpr int64_t kMaxContext = 1 << 24;
constexpr double kMaxEpsilon = 0.1;
constexpr double kMaxRopeBase = 1e12;
constexpr double kMaxRopeFactor = 1024;
constexpr int64_t kMaxExperts = 256;  // as llama.cpp (DeepSeek-V3 has 256)

// Reads the `{arch}.` keys of one file, keeping the first problem (key and value) for the error.
class KeyReader {
 public:
  KeyReader(const gguf::GgufFile& file, std::string prefix) : file_(file), prefix_(std::move(prefix)) {}

  // A required integer in [lo, hi].
  int32_t need(const std::string& key, int64_t lo, int64_t hi) {
    const auto v = file_.get_int(prefix_ + key);
    if (v) return checked(key, *v, lo, hi);
    note(fmt::format("missing metadata key '{}{}'", prefix_, key));
    return 0;
  }
  // An optional integer in [lo, hi]; `fallback` when absent.
  int32_t optional(const std::string& key, int64_t lo, int64_t hi, int32_t fallback) {
    const auto v = file_.get_int(prefix_ + key);
    return v ? checked(key, *v, lo, hi) : fallback;
  }
  // A number in (lo, hi], finite; `fallback` when absent (nullopt: required).
  double real(const std::string& key, double lo, double hi, std::optional<double> fallback) {
    const auto v = file_.get_float(prefix_ + key);
    if (!v && fallback) return *fallback;
    if (!v) {
      note(fmt::format("missing metadata key '{}{}'", prefix_, key));
      return 0.0;
    }
    if (!std::isfinite(*v) || *v <= lo || *v > hi)
      note(fmt::format("invalid metadata key '{}{}' = {:g}: expected a finite number in ({:g}, {:g}]",
                       prefix_, key, *v, lo, hi));
    return *v;
  }
  bool has(const std::string& key) const { return file_.get_int(prefix_ + key).has_value(); }
  // Records a problem (the first one is reported).
  void note(std::string problem) {
    if (!problem_) problem_ = std::move(problem);
  }
  const std::optional<std::string>& problem() const { return problem_; }

 private:
  int32_t checked(const std::string& key, int64_t v, int64_t lo, int64_t hi) {
    if (v >= lo && v <= hi) return static_cast<int32_t>(v);
    note(fmt::format("invalid metadata key '{}{}' = {}: expected an integer in [{}, {}]", prefix_, key, v, lo,
                     hi));
    return 0;
  }

  const gguf::GgufFile& file_;
  std::string prefix_;
  std::optional<std::string> problem_;
};

// The layer shape: counts and sizes, heads dividing as the attention needs.
void read_shape(KeyReader& k, ModelShape& s) {
  s.num_layers = k.need("block_count", 1, kMaxLayers);
  s.embedding_dim = k.need("embedding_length", 1, kMaxEmbedding);
  s.num_heads = k.need("attention.head_count", 1, kMaxHeads);
  s.ffn_dim = k.need("feed_forward_length", 1, kMaxFfn);
  s.context_length = k.need("context_length", 1, kMaxContext);
  s.num_kv_heads = k.optional("attention.head_count_kv", 1, kMaxHeads, s.num_heads);
  if (k.problem()) return;
  if (k.has("attention.key_length")) {
    s.head_dim = k.optional("attention.key_length", 1, kMaxHeadDim, 0);
  } else if (s.embedding_dim % s.num_heads != 0 || s.embedding_dim / s.num_heads > kMaxHeadDim) {
    k.note(
        fmt::format("embedding_length {} is not head_count {} x a head size of at most {} (and there is no "
                    "attention.key_length)",
                    s.embedding_dim, s.num_heads, kMaxHeadDim));
  } else {
    s.head_dim = s.embedding_dim / s.num_heads;
  }
  if (k.problem()) return;
  if (s.num_heads % s.num_kv_heads != 0)
    k.note(fmt::format("head_count {} is not a multiple of head_count_kv {}", s.num_heads, s.num_kv_heads));
  if (const int32_t v = k.optional("attention.value_length", 1, kMaxHeadDim, s.head_dim); v != s.head_dim)
    k.note(
        fmt::format("attention.value_length {} differs from key_length {} (not supported)", v, s.head_dim));
}

// Rope: the rotated dimensions, the base and the linear scaling (positions divided by
// `rope.scaling.factor`, or the older `rope.scale_linear`, as llama.cpp reads them). Llama 3.1's
// scheme comes as the rope_freqs.weight tensor instead (see model_weights.h).
void read_rope(const gguf::GgufFile& file, KeyReader& k, const std::string& p, ModelConfig& c) {
  const int32_t head_dim = c.shape.head_dim;
  c.rope_dim = k.optional("rope.dimension_count", 1, kMaxHeadDim, head_dim);
  if (k.problem()) return;
  if (c.rope_dim > head_dim || c.rope_dim % 2 != 0)
    return k.note(fmt::format("rope.dimension_count {} must be even and at most the head size {}", c.rope_dim,
                              head_dim));
  c.rope_freq_base = static_cast<float>(k.real("rope.freq_base", 1.0, kMaxRopeBase, 10000.0));
  c.rope_original_context =
      k.optional("rope.scaling.original_context_length", 1, kMaxContext, c.shape.context_length);
  c.rope_attn_factor = static_cast<float>(k.real("rope.scaling.attn_factor", 0.0, 100.0, 1.0));
  const bool longrope = file.find_tensor("rope_factors_long.weight") != nullptr;
  const std::string scaling =
      file.get_string(p + "rope.scaling.type").value_or(longrope ? "longrope" : "none");
  if (scaling == "longrope" && !longrope)
    return k.note("rope scaling 'longrope' without the rope_factors_long / rope_factors_short tensors");
  if (scaling != "none" && scaling != "linear" && scaling != "longrope")
    return k.note(
        fmt::format("rope scaling '{}' is not supported (supported: none, linear, longrope)", scaling));
  const char* key = file.get_float(p + "rope.scaling.factor") ? "rope.scaling.factor" : "rope.scale_linear";
  if (!file.get_float(p + key)) return;
  // 0 means "no scaling" in files llama.cpp writes; otherwise a positive factor.
  const double factor = *file.get_float(p + key);
  if (factor == 0) return;
  c.rope_freq_scale = static_cast<float>(1.0 / k.real(key, 0.0, kMaxRopeFactor, std::nullopt));
}

// Phi-3's sliding window (`attention.sliding_window`; 0 is none, as in Phi-4). Files converted
// before the key existed get llama.cpp's defaults for the published shapes (Phi-3-mini / medium with
// a 4k context: 2047).
int32_t phi3_window(KeyReader& k, const ModelShape& s) {
  int32_t fallback = 0;
  if ((s.num_layers == 32 || s.num_layers == 40) && s.context_length == 4096)
    fallback = 2047;
  else if (s.num_layers == 32 && s.num_kv_heads == 32 && s.context_length == 131072)
    fallback = 262144;
  else if (s.num_layers == 40 && s.context_length == 131072)
    fallback = 131072;
  if (k.has("attention.sliding_window"))  // 0: no window (Phi-4)
    return k.optional("attention.sliding_window", 0, kMaxContext, 0);
  if (fallback == 0)
    k.note("missing metadata key 'phi3.attention.sliding_window' (Phi-3 attends over a sliding window)");
  return fallback;
}

// What Gemma 2 and 3 share: the embedding scaled by sqrt(width), post-norms, GeGLU, and queries
// scaled by 1 / sqrt(head_dim), or 1 / sqrt(width / heads) where `scale_by_width` (the 27Bs).
void read_gemma_common(ModelConfig& c, bool scale_by_width) {
  c.embedding_scale = std::sqrt(static_cast<float>(c.shape.embedding_dim));
  c.post_norms = true;
  c.gelu_ffn = true;
  const int32_t query_dim = scale_by_width ? c.shape.embedding_dim / c.shape.num_heads : c.shape.head_dim;
  c.query_scale = 1.0f / std::sqrt(static_cast<float>(query_dim));
}

// Gemma 2, as llama.cpp reads it: a 4096-position window on the even layers unless the file says
// otherwise, soft caps 50 (attention) and 30 (final logits) unless given, the embedding scaled by
// sqrt(width), and queries by 1 / sqrt(head_dim) — 1 / sqrt(width / heads) for the 46-layer 27B,
// whose query_pre_attn_scalar is that.
void read_gemma2(KeyReader& k, ModelConfig& c) {
  c.shape.sliding_window = k.optional("attention.sliding_window", 1, kMaxContext, 4096);
  c.shape.window_pattern = 2;
  c.attn_softcap = static_cast<float>(k.real("attn_logit_softcapping", 0.0, 1e6, 50.0));
  c.final_softcap = static_cast<float>(k.real("final_logit_softcapping", 0.0, 1e6, 30.0));
  read_gemma_common(c, c.shape.num_layers == 46);
}

// Gemma 3, as llama.cpp reads it: five of every six layers slide a window (the file's) with rope
// base 10000 unscaled, the sixth attends to all with the file's rope; q and k normalised per head;
// no soft caps; queries scaled as Gemma 2's (by width / heads for the 62-layer 27B).
void read_gemma3(KeyReader& k, ModelConfig& c) {
  c.shape.sliding_window = k.need("attention.sliding_window", 1, kMaxContext);
  c.shape.window_pattern = 6;
  c.rope_freq_base_window = 10000.0f;
  c.rope_freq_scale_window = 1.0f;
  c.qk_norm = true;
  read_gemma_common(c, c.shape.num_layers == 62);
}

// The experts of a mixture-of-experts file, as llama.cpp reads them: qwen2moe and qwen3moe must
// have them, a llama may (Mixtral, whose experts have the FFN width); an expert's width defaults to
// feed_forward_length / experts_used, the shared expert's to feed_forward_length.
void read_experts(KeyReader& k, const std::string& arch, ModelConfig& c) {
  const bool moe_arch = arch == "qwen2moe" || arch == "qwen3moe";
  const int32_t count = k.optional("expert_count", 0, kMaxExperts, 0);
  if (k.problem() || (count == 0 && !moe_arch)) return;
  if (count == 0)
    return k.note(
        fmt::format("missing metadata key '{}.expert_count' ({} is a mixture of experts)", arch, arch));
  if (arch != "llama" && !moe_arch)
    return k.note(
        fmt::format("{}.expert_count = {}: experts in a {} model are not supported (they are in llama, "
                    "qwen2moe and qwen3moe)",
                    arch, count, arch));
  c.num_experts = count;
  c.experts_used = k.need("expert_used_count", 1, count);
  if (k.problem()) return;
  if (arch == "llama") {
    c.expert_ffn = c.shape.ffn_dim;
  } else {
    c.expert_ffn =
        k.optional("expert_feed_forward_length", 1, kMaxFfn, std::max(1, c.shape.ffn_dim / c.experts_used));
  }
  if (arch == "qwen2moe")
    c.shared_ffn = k.optional("expert_shared_feed_forward_length", 1, kMaxFfn, c.shape.ffn_dim);
  c.normalize_expert_weights = arch != "qwen2moe";
}

}  // namespace

std::expected<ModelConfig, Error> read_model_config(const gguf::GgufFile& file) {
  const auto fail = [&](const std::string& what) {
    return std::unexpected(Error{fmt::format("{}: {}", file.path(), what)});
  };
  const auto arch = file.get_string("general.architecture");
  if (!arch) return fail("missing metadata key 'general.architecture'");
  static constexpr std::string_view kArchs[] = {"llama",  "qwen2",  "qwen3",    "phi3",
                                                "gemma2", "gemma3", "qwen2moe", "qwen3moe"};
  if (std::find(std::begin(kArchs), std::end(kArchs), *arch) == std::end(kArchs))
    return fail(
        fmt::format("architecture '{}' is not supported (supported: llama, qwen2, qwen3, phi3, gemma2, "
                    "gemma3, qwen2moe, qwen3moe)",
                    *arch));
  const std::string p = *arch + ".";

  ModelConfig c;
  c.shape.arch = *arch;
  c.rope_style = *arch == "llama" ? kernels::RopeStyle::Normal : kernels::RopeStyle::Neox;
  c.qk_norm = *arch == "qwen3" || *arch == "qwen3moe";
  KeyReader k(file, p);
  read_shape(k, c.shape);
  if (!k.problem())
    c.rms_norm_eps =
        static_cast<float>(k.real("attention.layer_norm_rms_epsilon", 0.0, kMaxEpsilon, std::nullopt));
  if (!k.problem()) read_rope(file, k, p, c);
  if (!k.problem() && *arch == "phi3") c.shape.sliding_window = phi3_window(k, c.shape);
  if (!k.problem() && *arch == "gemma2") read_gemma2(k, c);
  if (!k.problem() && *arch == "gemma3") read_gemma3(k, c);
  if (!k.problem()) read_experts(k, *arch, c);
  if (k.problem()) return fail(*k.problem());

  // The vocabulary is the token embedding's row count.
  const auto* embd = file.find_tensor("token_embd.weight");
  if (!embd || embd->dims.size() != 2) return fail("missing 2-D tensor 'token_embd.weight'");
  if (embd->dims[1] < 1 || embd->dims[1] > (int64_t{1} << 24))
    return fail(fmt::format("token_embd.weight has {} rows: not a vocabulary size", embd->dims[1]));
  c.shape.vocab_size = static_cast<int32_t>(embd->dims[1]);
  return c;
}

}  // namespace engine
