// `arena synth`: writes a random-weight GGUF model of a named or custom shape (for benchmarks,
// the quickstart and tests). Parses flags and calls engine/synth. While it writes, a fatal signal
// (Ctrl-C, kill, hangup, a file-size limit) removes the partial "<output>.part" before the
// process dies, so an interrupted multi-GB write leaves nothing behind (SIGKILL cannot be caught).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "arena/cli/command.h"
#include "engine/tools/synth/synthesize.h"

namespace arena::cli {

namespace {

struct SynthFlags {
  std::string arch, shape, dtype, tokenizer, corpus, user_tokens, output, name;
  int64_t layers = 0, embd = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0, context = 0,
          sliding_window = 0, experts = 0, experts_used = 0, expert_ffn = 0, shared_ffn = 0, longrope = 0;
  float rope_base = 0, rms_eps = 0, attn_softcap = 0, final_softcap = 0;
  uint64_t seed = 0;
  int threads = 0;
  bool tied = false, untied = false;
};

// The partial file to remove on a fatal signal; written before the handlers are installed.
std::array<char, 4096> g_part_path{};
constexpr std::array kCleanupSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGXCPU};

extern "C" void remove_part_and_die(int sig) {
  ::unlink(g_part_path.data());  // async-signal-safe
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Installs remove_part_and_die for the write of `output` (GgufWriter writes "<output>.part" and
// renames it when done); the previous handlers come back when the guard goes.
class PartFileGuard {
 public:
  explicit PartFileGuard(const std::string& output) {
    const std::string part = output + ".part";
    if (part.size() >= g_part_path.size()) return;  // too long to keep; the writer still cleans up on errors
    std::memcpy(g_part_path.data(), part.c_str(), part.size() + 1);
    struct sigaction sa {};
    sa.sa_handler = remove_part_and_die;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kCleanupSignals.size(); ++i) sigaction(kCleanupSignals[i], &sa, &previous_[i]);
    installed_ = true;
  }
  ~PartFileGuard() {
    if (!installed_) return;
    for (size_t i = 0; i < kCleanupSignals.size(); ++i) sigaction(kCleanupSignals[i], &previous_[i], nullptr);
  }
  PartFileGuard(const PartFileGuard&) = delete;
  PartFileGuard& operator=(const PartFileGuard&) = delete;

 private:
  std::array<struct sigaction, kCleanupSignals.size()> previous_{};
  bool installed_ = false;
};

int usage_error(const std::string& message) {
  fmt::print(stderr, "arena synth: error: {}\n", message);
  return kUsageExitCode;
}

int run(const SynthFlags& f, const CLI::App& cmd) {
  namespace synth = engine::synth;
  auto given = [&](const char* flag) { return cmd.count(flag) > 0; };
  synth::ShapeOverrides o;
  if (given("--arch")) o.arch = synth::parse_arch(f.arch);
  if (given("--layers")) o.num_layers = f.layers;
  if (given("--embd")) o.embd = f.embd;
  if (given("--heads")) o.num_heads = f.heads;
  if (given("--kv-heads")) o.num_kv_heads = f.kv_heads;
  if (given("--head-dim")) o.head_dim = f.head_dim;
  if (given("--ffn")) o.ffn = f.ffn;
  if (given("--vocab")) o.vocab = f.vocab;
  if (given("--context")) o.context = f.context;
  if (given("--rope-base")) o.rope_base = f.rope_base;
  if (given("--rms-eps")) o.rms_eps = f.rms_eps;
  if (given("--sliding-window")) o.sliding_window = f.sliding_window;
  if (given("--attn-softcap")) o.attn_softcap = f.attn_softcap;
  if (given("--final-softcap")) o.final_softcap = f.final_softcap;
  if (given("--experts")) o.num_experts = f.experts;
  if (given("--experts-used")) o.experts_used = f.experts_used;
  if (given("--expert-ffn")) o.expert_ffn = f.expert_ffn;
  if (given("--shared-ffn")) o.shared_ffn = f.shared_ffn;
  if (given("--longrope")) o.longrope_original_context = f.longrope;
  if (f.tied) o.tied_embeddings = true;
  if (f.untied) o.tied_embeddings = false;

  synth::SynthOptions options;
  auto shape = synth::resolve_shape(given("--shape") ? std::optional(f.shape) : std::nullopt, o);
  if (!shape) return usage_error(shape.error().message);
  options.shape = *shape;
  if (!given("--vocab") && given("--tokenizer")) options.shape.vocab = 0;  // the file's vocabulary decides
  options.vocab_given = given("--vocab");
  options.dtype = *synth::parse_dtype(f.dtype);
  options.seed = f.seed;
  options.tokenizer_path = f.tokenizer;
  options.corpus_path = f.corpus;
  options.user_tokens_path = f.user_tokens;
  options.output_path = f.output;
  options.name = f.name;
  options.num_threads = f.threads;
  if (auto ok = synth::check_options(options); !ok) return usage_error(ok.error().message);

  const bool show_progress = isatty(fileno(stderr)) != 0;
  const auto start = std::chrono::steady_clock::now();
  auto result = [&] {
    const PartFileGuard guard(f.output);
    return synth::synthesize(options, [&](size_t i, size_t n, const std::string& name) {
      if (show_progress) fmt::print(stderr, "\r\033[K[{}/{}] {}", i + 1, n, name);
    });
  }();
  if (show_progress) fmt::print(stderr, "\r\033[K");
  if (!result) {
    fmt::print(stderr, "arena synth: error: {}\n", result.error().message);
    return 1;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& note : result->notes) fmt::print("note: {}\n", note);
  const auto& s = result->shape;
  fmt::print(
      "wrote {}: {} {} {}, {} layers, embd {}, {} heads ({} kv, dim {}), ffn {}{}, vocab {}{}; {} tensors, "
      "{:.1f}M parameters, {:.1f} MiB in {:.1f} s\n",
      f.output, synth::to_string(s.arch), s.name, synth::to_string(options.dtype), s.num_layers, s.embd,
      s.num_heads, s.num_kv_heads, s.head_dim, s.is_moe() ? s.expert_width() : s.ffn,
      s.is_moe()
          ? fmt::format(" x {} experts ({} per token{})", s.num_experts, s.experts_used,
                        s.arch == synth::Arch::Qwen2Moe ? fmt::format(", shared {}", s.shared_width()) : "")
          : "",
      s.vocab, s.tied_embeddings ? ", tied embeddings" : "", result->num_tensors,
      static_cast<double>(result->num_params) / 1e6, static_cast<double>(result->file_bytes) / (1 << 20),
      seconds);
  return 0;
}

}  // namespace

void add_synth_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<SynthFlags>();
  auto* cmd = root.add_subcommand(
      "synth",
      "Write a GGUF model with random weights of a given shape (loads in llama.cpp too).\n"
      "Named shapes: " +
          engine::synth::shape_names() + ". Flags after --shape override its values.");
  SynthFlags& f = *flags;
  cmd->add_option("--arch", f.arch,
                  "Architecture: llama (with --experts: Mixtral), qwen2 (q/k/v biases), qwen3 (q/k norms), "
                  "phi3 (fused q/k/v and gate/up, a sliding window), gemma2 (post-norms, GELU, soft caps, a "
                  "window on even layers), gemma3 (post-norms, GELU, q/k norms, a window on 5 of 6 layers), "
                  "qwen2moe (experts, a shared expert, q/k/v biases) or qwen3moe "
                  "(experts, q/k norms); default: the shape's")
      ->check(CLI::IsMember({"llama", "qwen2", "qwen3", "phi3", "gemma2", "gemma3", "qwen2moe", "qwen3moe"},
                            CLI::ignore_case));
  cmd->add_option("--shape", f.shape, "Named shape: " + engine::synth::shape_names())
      ->check([](const std::string& s) {
        return engine::synth::find_shape(s)
                   ? std::string{}
                   : "unknown shape '" + s + "' (known: " + engine::synth::shape_names() + ")";
      });
  cmd->add_option("--layers", f.layers, "Number of transformer blocks");
  cmd->add_option("--embd", f.embd, "Hidden width");
  cmd->add_option("--heads", f.heads, "Attention (query) heads");
  cmd->add_option("--kv-heads", f.kv_heads, "Key/value heads (default: --heads)");
  cmd->add_option("--head-dim", f.head_dim, "Per-head width (default: embd / heads)");
  cmd->add_option("--ffn", f.ffn, "Feed-forward width");
  cmd->add_option(
      "--vocab", f.vocab,
      "Vocabulary size (built-in tokenizer: at least 259); with --tokenizer it must match or be omitted");
  cmd->add_option("--context", f.context, "Context length written to the metadata");
  cmd->add_option("--rope-base", f.rope_base, "RoPE frequency base");
  cmd->add_option("--rms-eps", f.rms_eps, "RMSNorm epsilon");
  cmd->add_option("--sliding-window", f.sliding_window,
                  "phi3, gemma2 (even layers), gemma3 (5 of 6 layers): each query attends to its last N "
                  "positions (0: all; phi-3-mini: 2047, gemma-2-2b: 4096, gemma-3-1b: 512)");
  cmd->add_option("--attn-softcap", f.attn_softcap, "gemma2: soft cap of the attention scores (Gemma 2: 50)");
  cmd->add_option("--final-softcap", f.final_softcap, "gemma2: soft cap of the final logits (Gemma 2: 30)");
  cmd->add_option("--experts", f.experts,
                  "Mixture of experts: expert FFNs per layer (llama, qwen2moe, qwen3moe)");
  cmd->add_option("--experts-used", f.experts_used, "Experts each token is routed to");
  cmd->add_option("--expert-ffn", f.expert_ffn,
                  "qwen2moe, qwen3moe: each expert's FFN width (default: --ffn)");
  cmd->add_option("--shared-ffn", f.shared_ffn, "qwen2moe: the shared expert's FFN width (default: --ffn)");
  cmd->add_option("--longrope", f.longrope,
                  "phi3: LongRoPE factors (rope_factors_long / short) for an original context of N tokens "
                  "(Phi-3.5-mini: 4096 of 131072)");
  auto* tied =
      cmd->add_flag("--tied", f.tied, "Share token_embd as the output projection (no output.weight)");
  cmd->add_flag("--untied", f.untied, "Write a separate output.weight")->excludes(tied);
  cmd->add_option("--tokenizer", f.tokenizer,
                  "Copy every tokenizer.* key (and the vocabulary size) from this GGUF file")
      ->check(CLI::ExistingFile);
  cmd->add_option("--corpus", f.corpus,
                  "Learn the built-in tokenizer's merges from this text file instead of the built-in corpus")
      ->check(CLI::ExistingFile)
      ->excludes("--tokenizer");
  cmd->add_option("--user-tokens", f.user_tokens,
                  "Add one USER_DEFINED token per line of this UTF-8 file to the vocabulary (the built-in "
                  "one after its special tokens, or --tokenizer's after its tokens; --vocab counts them): "
                  "each is split out of any text before BPE, so it is always one token")
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--dtype", f.dtype,
         "Weight type: f32, f16, bf16, q8_0 or q4_k. Norms and biases stay f32. q4_k: Q4_K weights with a "
         "Q6_K output (token_embd too when tied); rows that are not a multiple of 256 fall back to q5_0 "
         "(q8_0 for the output), as llama.cpp's quantizer does. Quantized types need rows that are "
         "multiples of 32.")
      ->required()
      ->check(CLI::IsMember({"f32", "f16", "bf16", "q8_0", "q4_k"}, CLI::ignore_case));
  cmd->add_option("--seed", f.seed, "Random seed (the same seed gives the same file)");
  cmd->add_option("--name", f.name, "general.name (default: synth-<shape>-<dtype>)");
  cmd->add_option("--threads", f.threads, "Worker threads (default: every core)");
  cmd->add_option("-o,--output", f.output, "Output file")->required();
  cmd->callback([&action, flags, cmd] { action = [flags, cmd] { return run(*flags, *cmd); }; });
}

}  // namespace arena::cli
