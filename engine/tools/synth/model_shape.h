// The hyper-parameters of a decoder-only transformer to synthesize: named shapes with the real
// models' published values (Qwen2.5, Qwen3, Llama 3 / 3.2, Phi-3, Gemma 2 and 3, the mixtures of experts
// Mixtral, Qwen1.5-MoE and Qwen3-MoE, and a tiny test shape), per-flag overrides, and the checks that make a
// shape loadable (heads divide the width, and so on).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/error.h"

namespace engine::synth {

// Architectures whose tensor layout we write (llama.cpp's arch names).
// A llama with experts is Mixtral's layout.
enum class Arch { Llama, Qwen2, Qwen3, Phi3, Gemma2, Gemma3, Qwen2Moe, Qwen3Moe };

struct ModelShape {
  std::string name;  // a named shape, or "custom"
  Arch arch = Arch::Llama;
  int64_t num_layers = 0;
  int64_t embd = 0;          // hidden width (n_embd)
  int64_t num_heads = 0;     // query heads
  int64_t num_kv_heads = 0;  // key/value heads (GQA when fewer than num_heads)
  int64_t head_dim = 0;      // per-head width; embd / num_heads unless the model says otherwise
  int64_t ffn = 0;           // feed-forward (SwiGLU) width
  int64_t vocab = 0;         // 0: taken from the tokenizer file
  int64_t context = 0;       // trained context length
  float rope_base = 10000.f;
  float rms_eps = 1e-5f;
  bool tied_embeddings = false;  // output projection shares token_embd (no output.weight)
  int64_t sliding_window =
      0;  // phi3, gemma2 (even layers), gemma3 (5 of 6): each query sees its last N positions
  float attn_softcap = 50.f;   // gemma2: cap * tanh(x / cap) of attention scores
  float final_softcap = 30.f;  // gemma2: the same of the final logits
  // Mixture of experts (llama, qwen2moe, qwen3moe): each token's FFN is the weighted sum of the
  // `experts_used` of `num_experts` expert FFNs its router picks (0 experts: a dense FFN).
  int64_t num_experts = 0;
  int64_t experts_used = 0;
  int64_t expert_ffn = 0;  // each expert's FFN width (0: ffn)
  int64_t shared_ffn = 0;  // qwen2moe: the shared expert's FFN width (0: ffn)
  // phi3 LongRoPE (Phi-3-128k, Phi-3.5): the original context the short factors serve, written with
  // rope_factors_long / rope_factors_short and the attention factor llama.cpp's converter computes
  // (0: none).
  int64_t longrope_original_context = 0;

  bool is_moe() const { return num_experts > 0; }
  // The widths written: expert_ffn and shared_ffn with their defaults applied.
  int64_t expert_width() const { return expert_ffn > 0 ? expert_ffn : ffn; }
  int64_t shared_width() const { return shared_ffn > 0 ? shared_ffn : ffn; }

  // Query width num_heads * head_dim, and key/value width num_kv_heads * head_dim.
  int64_t q_width() const { return num_heads * head_dim; }
  int64_t kv_width() const { return num_kv_heads * head_dim; }
};

// Values given on the command line; each present one replaces the named shape's.
struct ShapeOverrides {
  std::optional<Arch> arch;
  std::optional<int64_t> num_layers, embd, num_heads, num_kv_heads, head_dim, ffn, vocab, context,
      sliding_window, num_experts, experts_used, expert_ffn, shared_ffn, longrope_original_context;
  std::optional<float> rope_base, rms_eps, attn_softcap, final_softcap;
  std::optional<bool> tied_embeddings;
};

// llama.cpp's name of an architecture ("llama", "qwen2", "qwen3", "phi3", "gemma2", "gemma3", "qwen2moe",
// "qwen3moe").
const char* to_string(Arch arch);
// The architecture of that name, or nullopt.
std::optional<Arch> parse_arch(std::string_view name);

// Every named shape.
std::span<const ModelShape> named_shapes();
// A named shape (case-insensitive), or nullptr.
const ModelShape* find_shape(std::string_view name);
// "tiny, qwen2.5-0.5b, ..." for help texts and errors.
std::string shape_names();

// The named shape (or, without a name, one built from the overrides alone) with the overrides
// applied, then checked by validate_shape. Without a name, --arch, --layers, --embd, --heads and
// --ffn are required; head_dim defaults to embd / heads and kv heads to heads.
std::expected<ModelShape, Error> resolve_shape(const std::optional<std::string>& name,
                                               const ShapeOverrides& overrides);

// Checks that the shape is consistent: sizes positive, heads divide embd (unless head_dim is
// given), kv heads divide heads, head_dim even (RoPE rotates pairs), eps and rope base positive,
// experts where the architecture has them (qwen2moe, qwen3moe; llama optionally) and 1 ≤ used ≤ experts.
std::expected<void, Error> validate_shape(const ModelShape& shape);

}  // namespace engine::synth
