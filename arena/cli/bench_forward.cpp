// `arena bench forward --model M [--prompt-tokens P] [--gen-tokens G] [--threads T] [--repeat R]`:
// evaluates P pseudo-random prompt tokens in one forward pass (prompt processing, tokens/s),
// then G greedy tokens one at a time (single-stream decode, tokens/s), from an empty F32 KV
// cache. Each figure is the best of R runs; the CPU seconds the process used alongside show how
// much of the machine it got. The tokenizer is not needed and not loaded.
#include "arena/cli/bench_forward.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "engine/model/forward_bench.h"

namespace arena::cli {

namespace {

struct ForwardFlags {
  std::string model;
  engine::ForwardBenchOptions options;
};

int run_bench_forward(const ForwardFlags& f) {
  const auto result =
      engine::run_forward_bench(f.model, f.options, [](std::string_view line) { fmt::print("{}\n", line); });
  if (!result) return fail("bench forward", result.error().message);
  return 0;
}

}  // namespace

void add_bench_forward(CLI::App& bench, Action& action) {
  auto* cmd =
      bench.add_subcommand("forward", "Prompt-processing and decode tokens/s of a GGUF model's forward pass");
  auto flags = std::make_shared<ForwardFlags>();
  cmd->add_option("--model", flags->model, "GGUF model file")->required();
  cmd->add_option("--prompt-tokens", flags->options.prompt_tokens, "Prompt tokens evaluated in one pass")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--gen-tokens", flags->options.gen_tokens, "Tokens decoded one at a time")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--threads", flags->options.num_threads, "Compute threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeat", flags->options.repeat, "Runs; the best is reported")->check(CLI::Range(1, 100));
  cmd->callback([flags, &action] { action = [flags] { return run_bench_forward(*flags); }; });
}

}  // namespace arena::cli
