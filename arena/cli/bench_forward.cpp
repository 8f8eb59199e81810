// `arena bench forward --model M [--prompt-tokens P] [--gen-tokens G] [--threads T] [--repeat R]`:
// evaluates P pseudo-random prompt tokens in one forward pass (prompt processing, tokens/s),
// then G greedy tokens one at a time (single-stream decode, tokens/s), from an empty F32 KV
// cache. Each figure is the best of R runs; the CPU seconds the process used alongside show how
// much of the machine it got. The tokenizer is not needed and not loaded.
#include "arena/cli/bench_forward.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "kernels/cpu/vec_dot_simd.h"

namespace arena::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct ForwardFlags {
  std::string model;
  int prompt_tokens = 512;
  int gen_tokens = 64;
  int threads = 0;
  int repeat = 3;
};

int fail(const std::string& message) {
  fmt::print(stderr, "arena bench forward: error: {}\n", message);
  return 1;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds used by the whole process so far (all threads, spinning included).
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int run_bench_forward(const ForwardFlags& f) {
  auto file = engine::gguf::GgufFile::open(f.model);
  if (!file) return fail(file.error().message);
  auto model = engine::Transformer::from_gguf(*file, f.threads);
  if (!model) return fail(model.error().message);
  engine::Transformer& net = **model;
  const auto& s = net.shape();
  fmt::print("model   {}: {} {} layers, embd {}, {} heads ({} kv, dim {}), ffn {}, vocab {}\n", f.model,
             s.arch, s.num_layers, s.embedding_dim, s.num_heads, s.num_kv_heads, s.head_dim, s.ffn_dim,
             s.vocab_size);
  fmt::print("threads {}, simd {}\n", net.num_threads(), kernels::to_string(kernels::vec_dot_level()));

  std::mt19937 rng(1234);
  std::uniform_int_distribution<int32_t> token(0, s.vocab_size - 1);
  std::vector<int32_t> prompt(static_cast<size_t>(f.prompt_tokens));
  for (auto& t : prompt) t = token(rng);

  double best_prompt = 0, best_decode = 0;
  for (int r = 0; r < f.repeat; ++r) {
    engine::SequenceRunner runner(net, f.prompt_tokens + f.gen_tokens);
    const double c0 = process_cpu_seconds();
    const auto t0 = Clock::now();
    auto logits = runner.eval(prompt, /*all_logits=*/false);
    if (!logits) return fail(logits.error().message);
    const double prompt_s = seconds_since(t0);
    const double c1 = process_cpu_seconds();
    const auto t1 = Clock::now();
    for (int i = 0; i < f.gen_tokens; ++i) {
      const int32_t next = engine::argmax(*logits);
      logits = runner.eval(std::span(&next, 1), /*all_logits=*/false);
      if (!logits) return fail(logits.error().message);
    }
    const double decode_s = seconds_since(t1);
    const double decode_cpu = process_cpu_seconds() - c1;
    const double pp = f.prompt_tokens / prompt_s, tg = f.gen_tokens > 0 ? f.gen_tokens / decode_s : 0.0;
    fmt::print(
        "run {}: prompt {} tokens in {:.3f} s = {:.1f} tok/s ({:.2f} cpu-s); decode {} tokens in {:.3f} s = "
        "{:.2f} tok/s ({:.2f} cpu-s)\n",
        r + 1, f.prompt_tokens, prompt_s, pp, c1 - c0, f.gen_tokens, decode_s, tg, decode_cpu);
    best_prompt = std::max(best_prompt, pp);
    best_decode = std::max(best_decode, tg);
  }
  fmt::print("best    prompt processing {:.1f} tok/s, decode {:.2f} tok/s\n", best_prompt, best_decode);
  return 0;
}

}  // namespace

void add_bench_forward(CLI::App& bench, Action& action) {
  auto* cmd =
      bench.add_subcommand("forward", "Prompt-processing and decode tokens/s of a GGUF model's forward pass");
  auto flags = std::make_shared<ForwardFlags>();
  cmd->add_option("--model", flags->model, "GGUF model file")->required();
  cmd->add_option("--prompt-tokens", flags->prompt_tokens, "Prompt tokens evaluated in one pass")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--gen-tokens", flags->gen_tokens, "Tokens decoded one at a time")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--threads", flags->threads, "Compute threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeat", flags->repeat, "Runs; the best is reported")->check(CLI::Range(1, 100));
  cmd->callback([flags, &action] { action = [flags] { return run_bench_forward(*flags); }; });
}

}  // namespace arena::cli
