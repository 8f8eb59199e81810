// `arena bench forward --model M [--prompt-tokens P] [--gen-tokens G] [--streams S] [--threads T]
// [--repeat R] [--kv-dtype D] [--block-size B] [--bandwidth]`: each of S sequences evaluates P
// pseudo-random prompt tokens in one forward pass (prompt processing, tokens/s), then G decode
// steps each run one forward pass over S rows, a greedy token per sequence (aggregate decode
// tokens/s, as llama-batched-bench's -npl S; S = 1 is single-stream decode at depth P). The KV
// cache starts empty (F32 unless --kv-dtype). Each figure is the best of R runs; the CPU seconds
// the process used alongside show how much of the machine it got. --bandwidth follows each decode
// step with a read of as many bytes as the step's weights and reports decode's weight GB/s as a
// fraction of that read's: the bound measured step by step beside the decode. The tokenizer is
// not needed and not loaded.
#include "arena/cli/bench_forward.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "engine/tools/forward_bench.h"

namespace arena::cli {

namespace {

struct ForwardFlags {
  std::string model;
  std::string kv_dtype = "f32";
  engine::ForwardBenchOptions options;
};

int run_bench_forward(ForwardFlags f) {
  f.options.kv_dtype = engine::parse_kv_dtype(f.kv_dtype).value_or(engine::KvDtype::F32);
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
  cmd->add_option("--prompt-tokens", flags->options.prompt_tokens,
                  "Prompt tokens per stream, evaluated in one pass (the decode depth)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--gen-tokens", flags->options.gen_tokens, "Decode steps (one token per stream each)")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--streams", flags->options.streams, "Sequences decoded together in one batch")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--threads", flags->options.num_threads, "Compute threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeat", flags->options.repeat, "Runs; the best is reported")->check(CLI::Range(1, 100));
  cmd->add_option("--kv-dtype", flags->kv_dtype, "KV cache value type: f32 (default), f16 or q8_0")
      ->check(CLI::IsMember(engine::kv_dtype_names()));
  cmd->add_option("--block-size", flags->options.block_size, "KV block size in tokens")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag(
      "--bandwidth", flags->options.bandwidth,
      "After each decode step, read as many bytes as its weights: decode as a fraction of that bandwidth");
  cmd->callback([flags, &action] { action = [flags] { return run_bench_forward(*flags); }; });
}

}  // namespace arena::cli
