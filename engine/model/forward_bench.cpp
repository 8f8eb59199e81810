// run_forward_bench: the transformer's forward pass timed on one sequence (engine tool).
#include "engine/model/forward_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <span>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "kernels/cpu/vec_dot_simd.h"

namespace engine {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds used by the whole process so far (all threads, spinning included).
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

std::expected<ForwardBenchResult, Error> run_forward_bench(
    const std::string& path, const ForwardBenchOptions& options,
    const std::function<void(std::string_view)>& report) {
  if (options.prompt_tokens < 1 || options.gen_tokens < 0 || options.repeat < 1)
    return std::unexpected(
        Error{fmt::format("prompt tokens ({}) and runs ({}) must be >= 1, gen tokens ({}) >= 0",
                          options.prompt_tokens, options.repeat, options.gen_tokens)});
  auto file = gguf::GgufFile::open(path);
  if (!file) return std::unexpected(file.error());
  auto model = Transformer::from_gguf(*file, options.num_threads);
  if (!model) return std::unexpected(model.error());
  Transformer& net = **model;
  const auto& s = net.shape();
  report(fmt::format("model   {}: {} {} layers, embd {}, {} heads ({} kv, dim {}), ffn {}, vocab {}", path,
                     s.arch, s.num_layers, s.embedding_dim, s.num_heads, s.num_kv_heads, s.head_dim,
                     s.ffn_dim, s.vocab_size));
  report(fmt::format("threads {}, simd {}", net.num_threads(), kernels::to_string(kernels::vec_dot_level())));

  std::mt19937 rng(1234);
  std::uniform_int_distribution<int32_t> token(0, s.vocab_size - 1);
  std::vector<int32_t> prompt(static_cast<size_t>(options.prompt_tokens));
  for (auto& t : prompt) t = token(rng);

  ForwardBenchResult best;
  for (int32_t r = 0; r < options.repeat; ++r) {
    SequenceRunner runner(net, options.prompt_tokens + options.gen_tokens);
    const double c0 = process_cpu_seconds();
    const auto t0 = Clock::now();
    auto logits = runner.eval(prompt, /*all_logits=*/false);
    if (!logits) return std::unexpected(logits.error());
    const double prompt_s = seconds_since(t0);
    const double c1 = process_cpu_seconds();
    const auto t1 = Clock::now();
    for (int32_t i = 0; i < options.gen_tokens; ++i) {
      const int32_t next = argmax(*logits);
      logits = runner.eval(std::span(&next, 1), /*all_logits=*/false);
      if (!logits) return std::unexpected(logits.error());
    }
    const double decode_s = seconds_since(t1);
    const double decode_cpu = process_cpu_seconds() - c1;
    const double pp = options.prompt_tokens / prompt_s;
    const double tg = options.gen_tokens > 0 ? options.gen_tokens / decode_s : 0.0;
    report(fmt::format(
        "run {}: prompt {} tokens in {:.3f} s = {:.1f} tok/s ({:.2f} cpu-s); decode {} tokens in {:.3f} s = "
        "{:.2f} tok/s ({:.2f} cpu-s)",
        r + 1, options.prompt_tokens, prompt_s, pp, c1 - c0, options.gen_tokens, decode_s, tg, decode_cpu));
    best.prompt_tokens_per_second = std::max(best.prompt_tokens_per_second, pp);
    best.decode_tokens_per_second = std::max(best.decode_tokens_per_second, tg);
  }
  report(fmt::format("best    prompt processing {:.1f} tok/s, decode {:.2f} tok/s",
                     best.prompt_tokens_per_second, best.decode_tokens_per_second));
  return best;
}

}  // namespace engine
