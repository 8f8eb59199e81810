// Named shapes (values from each model's published config.json) and shape resolution/checks.
#include "engine/tools/synth/model_shape.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "base/strings.h"

namespace engine::synth {

namespace {

// head_dim 0 means embd / num_heads, recomputed when --embd or --heads change it.
ModelShape make(const char* name, Arch arch, int64_t layers, int64_t embd, int64_t heads, int64_t kv_heads,
                int64_t head_dim, int64_t ffn, int64_t vocab, int64_t context, float rope_base, float rms_eps,
                bool tied) {
  ModelShape s;
  s.name = name;
  s.arch = arch;
  s.num_layers = layers;
  s.embd = embd;
  s.num_heads = heads;
  s.num_kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.ffn = ffn;
  s.vocab = vocab;
  s.context = context;
  s.rope_base = rope_base;
  s.rms_eps = rms_eps;
  s.tied_embeddings = tied;
  return s;
}

ModelShape with_window(ModelShape s, int64_t window) {
  s.sliding_window = window;
  return s;
}

ModelShape with_longrope(ModelShape s, int64_t original_context) {
  s.longrope_original_context = original_context;
  return s;
}

ModelShape with_experts(ModelShape s, int64_t experts, int64_t used, int64_t expert_ffn, int64_t shared_ffn) {
  s.num_experts = experts;
  s.experts_used = used;
  s.expert_ffn = expert_ffn;
  s.shared_ffn = shared_ffn;
  return s;
}

std::span<const ModelShape> shapes() {
  //                                         layers embd heads kv hd   ffn    vocab   ctx     rope    eps tied
  static const auto kShapes = std::to_array<ModelShape>({
      // A small model for tests: every row a multiple of 256, so every dtype applies unchanged.
      make("tiny", Arch::Llama, 2, 256, 4, 2, 0, 512, 1024, 2048, 10000.f, 1e-5f, false),
      make("qwen2.5-0.5b", Arch::Qwen2, 24, 896, 14, 2, 0, 4864, 151936, 32768, 1000000.f, 1e-6f, true),
      make("qwen2.5-1.5b", Arch::Qwen2, 28, 1536, 12, 2, 0, 8960, 151936, 32768, 1000000.f, 1e-6f, true),
      make("qwen3-0.6b", Arch::Qwen3, 28, 1024, 16, 8, 128, 3072, 151936, 40960, 1000000.f, 1e-6f, true),
      make("llama-3.2-1b", Arch::Llama, 16, 2048, 32, 8, 0, 8192, 128256, 131072, 500000.f, 1e-5f, true),
      make("llama-3-8b", Arch::Llama, 32, 4096, 32, 8, 0, 14336, 128256, 8192, 500000.f, 1e-5f, false),
      with_window(
          make("phi-3-mini", Arch::Phi3, 32, 3072, 32, 32, 0, 8192, 32064, 4096, 10000.f, 1e-5f, false),
          2047),
      with_longrope(with_window(make("phi-3.5-mini", Arch::Phi3, 32, 3072, 32, 32, 0, 8192, 32064, 131072,
                                     10000.f, 1e-5f, false),
                                262144),
                    4096),
      with_window(
          make("gemma-2-2b", Arch::Gemma2, 26, 2304, 8, 4, 256, 9216, 256000, 8192, 10000.f, 1e-6f, true),
          4096),
      with_window(
          make("gemma-3-1b", Arch::Gemma3, 26, 1152, 4, 1, 256, 6912, 262144, 32768, 1000000.f, 1e-6f, true),
          512),
      // Mixtures of experts: experts, used per token, expert FFN width, shared expert width.
      with_experts(
          make("mixtral-8x7b", Arch::Llama, 32, 4096, 32, 8, 0, 14336, 32000, 32768, 1000000.f, 1e-5f, false),
          8, 2, 0, 0),
      with_experts(make("qwen1.5-moe-a2.7b", Arch::Qwen2Moe, 24, 2048, 16, 16, 0, 5632, 151936, 8192,
                        1000000.f, 1e-6f, false),
                   60, 4, 1408, 5632),
      with_experts(make("qwen3-30b-a3b", Arch::Qwen3Moe, 48, 2048, 32, 4, 128, 6144, 151936, 40960, 1000000.f,
                        1e-6f, false),
                   128, 8, 768, 0),
  });
  return kShapes;
}

// The experts of a mixture-of-experts shape, as llama.cpp reads them (at most 256 experts).
std::expected<void, Error> validate_experts(const ModelShape& s) {
  auto fail = [](std::string what) { return std::unexpected(Error{std::move(what)}); };
  const bool moe_arch = s.arch == Arch::Qwen2Moe || s.arch == Arch::Qwen3Moe;
  if (moe_arch && !s.is_moe())
    return fail(
        fmt::format("{} is a mixture of experts: give --experts N and --experts-used K", to_string(s.arch)));
  if (s.is_moe() && !moe_arch && s.arch != Arch::Llama)
    return fail(fmt::format("{} has no experts (llama, qwen2moe and qwen3moe have)", to_string(s.arch)));
  if (!s.is_moe()) {
    if (s.experts_used != 0 || s.expert_ffn != 0 || s.shared_ffn != 0)
      return fail("--experts-used, --expert-ffn and --shared-ffn need --experts");
    return {};
  }
  if (s.num_experts < 1 || s.num_experts > 256)
    return fail(fmt::format("experts must be in [1, 256] (got {})", s.num_experts));
  if (s.experts_used < 1 || s.experts_used > s.num_experts)
    return fail(
        fmt::format("experts used must be in [1, experts = {}] (got {})", s.num_experts, s.experts_used));
  if (s.expert_ffn < 0 || s.expert_ffn > (int64_t{1} << 20) || s.shared_ffn < 0 ||
      s.shared_ffn > (int64_t{1} << 20))
    return fail(fmt::format("expert FFN widths must be in [1, {}] (got {} and {})", int64_t{1} << 20,
                            s.expert_ffn, s.shared_ffn));
  if (s.expert_ffn > 0 && s.arch == Arch::Llama)
    return fail("a llama with experts (Mixtral) has experts of the FFN width: give --ffn, not --expert-ffn");
  if (s.shared_ffn > 0 && s.arch != Arch::Qwen2Moe)
    return fail("only qwen2moe has a shared expert (--shared-ffn)");
  if (s.arch == Arch::Qwen2Moe && s.tied_embeddings)
    return fail("qwen2moe has its own output projection (llama.cpp requires output.weight): drop --tied");
  return {};
}

}  // namespace

const char* to_string(Arch arch) {
  switch (arch) {
    case Arch::Llama:
      return "llama";
    case Arch::Qwen2:
      return "qwen2";
    case Arch::Qwen3:
      return "qwen3";
    case Arch::Phi3:
      return "phi3";
    case Arch::Gemma2:
      return "gemma2";
    case Arch::Gemma3:
      return "gemma3";
    case Arch::Qwen2Moe:
      return "qwen2moe";
    case Arch::Qwen3Moe:
      return "qwen3moe";
  }
  return "unknown";
}

std::optional<Arch> parse_arch(std::string_view name) {
  for (Arch a : {Arch::Llama, Arch::Qwen2, Arch::Qwen3, Arch::Phi3, Arch::Gemma2, Arch::Gemma3,
                 Arch::Qwen2Moe, Arch::Qwen3Moe})
    if (base::to_lower(name) == to_string(a)) return a;
  return std::nullopt;
}

std::span<const ModelShape> named_shapes() {
  return shapes();
}

const ModelShape* find_shape(std::string_view name) {
  for (const auto& s : shapes())
    if (s.name == base::to_lower(name)) return &s;
  return nullptr;
}

std::string shape_names() {
  std::string out;
  for (const auto& s : shapes()) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

std::expected<ModelShape, Error> resolve_shape(const std::optional<std::string>& name,
                                               const ShapeOverrides& o) {
  ModelShape s;
  if (name) {
    const ModelShape* named = find_shape(*name);
    if (!named)
      return std::unexpected(Error{fmt::format("unknown shape '{}' (known: {})", *name, shape_names())});
    s = *named;
  } else {
    std::string missing;
    auto need = [&](bool present, const char* flag) {
      if (!present) missing += (missing.empty() ? "" : ", ") + std::string(flag);
    };
    need(o.arch.has_value(), "--arch");
    need(o.num_layers.has_value(), "--layers");
    need(o.embd.has_value(), "--embd");
    need(o.num_heads.has_value(), "--heads");
    need(o.ffn.has_value(), "--ffn");
    if (!missing.empty())
      return std::unexpected(Error{
          fmt::format("without --shape, {} must be given (or name a shape: {})", missing, shape_names())});
    s.name = "custom";
    s.context = 4096;
    s.rms_eps = *o.arch == Arch::Llama ? 1e-5f : 1e-6f;
    s.rope_base = *o.arch == Arch::Llama ? 10000.f : 1000000.f;
  }
  if (o.arch) s.arch = *o.arch;
  if (o.num_layers) s.num_layers = *o.num_layers;
  if (o.embd) s.embd = *o.embd;
  if (o.num_heads) s.num_heads = *o.num_heads;
  if (o.num_kv_heads) s.num_kv_heads = *o.num_kv_heads;
  if (o.head_dim) s.head_dim = *o.head_dim;
  if (o.ffn) s.ffn = *o.ffn;
  if (o.vocab) s.vocab = *o.vocab;
  if (o.context) s.context = *o.context;
  if (o.rope_base) s.rope_base = *o.rope_base;
  if (o.rms_eps) s.rms_eps = *o.rms_eps;
  if (o.tied_embeddings) s.tied_embeddings = *o.tied_embeddings;
  if (o.sliding_window) s.sliding_window = *o.sliding_window;
  if (o.attn_softcap) s.attn_softcap = *o.attn_softcap;
  if (o.final_softcap) s.final_softcap = *o.final_softcap;
  if (o.num_experts) s.num_experts = *o.num_experts;
  if (o.experts_used) s.experts_used = *o.experts_used;
  if (o.expert_ffn) s.expert_ffn = *o.expert_ffn;
  if (o.shared_ffn) s.shared_ffn = *o.shared_ffn;
  if (o.longrope_original_context) s.longrope_original_context = *o.longrope_original_context;
  if (s.arch == Arch::Gemma2 || s.arch == Arch::Gemma3) {  // what every Gemma 2 / 3 has, unless given
    if (!o.sliding_window && s.sliding_window == 0) s.sliding_window = s.arch == Arch::Gemma2 ? 4096 : 512;
    if (!o.tied_embeddings) s.tied_embeddings = true;
  }
  if (s.num_kv_heads == 0) s.num_kv_heads = s.num_heads;
  if (s.head_dim == 0) {
    if (s.num_heads <= 0 || s.embd % s.num_heads != 0)
      return std::unexpected(
          Error{fmt::format("{} heads do not divide the width {} (give --head-dim to set the head width)",
                            s.num_heads, s.embd)});
    s.head_dim = s.embd / s.num_heads;
  }
  if (auto ok = validate_shape(s); !ok) return std::unexpected(ok.error());
  return s;
}

std::expected<void, Error> validate_shape(const ModelShape& s) {
  auto fail = [](std::string what) { return std::unexpected(Error{std::move(what)}); };
  const std::pair<const char*, int64_t> sizes[] = {
      {"layers", s.num_layers}, {"embd", s.embd}, {"heads", s.num_heads}, {"kv heads", s.num_kv_heads},
      {"head dim", s.head_dim}, {"ffn", s.ffn},   {"context", s.context}};
  for (const auto& [what, value] : sizes)
    if (value <= 0) return fail(fmt::format("{} must be positive (got {})", what, value));
  if (s.vocab < 0) return fail(fmt::format("vocab must be positive (got {})", s.vocab));
  constexpr int64_t kMaxSize = int64_t{1} << 20;
  for (const auto& [what, value] : sizes)
    if (value > kMaxSize)
      return fail(fmt::format("{} = {} is beyond any real model (at most {})", what, value, kMaxSize));
  if (s.vocab > (int64_t{1} << 24))
    return fail(fmt::format("vocab = {} is too large (at most {})", s.vocab, int64_t{1} << 24));
  if (s.num_heads % s.num_kv_heads != 0)
    return fail(fmt::format("kv heads ({}) must divide heads ({})", s.num_kv_heads, s.num_heads));
  if (s.head_dim % 2 != 0)
    return fail(fmt::format("head dim {} must be even (RoPE rotates pairs)", s.head_dim));
  if (s.sliding_window < 0 || s.sliding_window > kMaxSize)
    return fail(fmt::format("sliding window must be in [0, {}] (got {})", kMaxSize, s.sliding_window));
  const bool gemma = s.arch == Arch::Gemma2 || s.arch == Arch::Gemma3;
  if (s.sliding_window > 0 && s.arch != Arch::Phi3 && !gemma)
    return fail(fmt::format("{} has no sliding window (phi3, gemma2 and gemma3 have)", to_string(s.arch)));
  if (!(s.attn_softcap > 0) || !(s.final_softcap > 0) || s.attn_softcap > 1e6 || s.final_softcap > 1e6)
    return fail(
        fmt::format("soft caps must be in (0, 1e6] (got {} and {})", s.attn_softcap, s.final_softcap));
  if (gemma && s.sliding_window == 0)
    return fail(fmt::format("{} slides a window over {} layers: give --sliding-window N > 0",
                            to_string(s.arch), s.arch == Arch::Gemma2 ? "its even" : "five of every six"));
  if (gemma && !s.tied_embeddings)
    return fail(fmt::format(
        "{} ties its output projection to token_embd (llama.cpp reads no output.weight): add --tied",
        to_string(s.arch)));
  if (s.arch == Arch::Phi3 && s.tied_embeddings)
    return fail("phi3 has its own output projection (llama.cpp requires output.weight): drop --tied");
  if (auto ok = validate_experts(s); !ok) return ok;
  if (s.longrope_original_context != 0 && s.arch != Arch::Phi3)
    return fail(fmt::format("{} has no LongRoPE (phi3 has)", to_string(s.arch)));
  if (s.longrope_original_context != 0 &&
      (s.longrope_original_context < 2 || s.longrope_original_context >= s.context))
    return fail(fmt::format("the LongRoPE original context must be in [2, context = {}) (got {})", s.context,
                            s.longrope_original_context));
  if (!(s.rope_base > 0)) return fail(fmt::format("rope base must be positive (got {})", s.rope_base));
  if (!(s.rms_eps > 0) || !(s.rms_eps < 1))
    return fail(fmt::format("rms eps must be in (0, 1) (got {})", s.rms_eps));
  return {};
}

}  // namespace engine::synth
