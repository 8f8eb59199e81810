// `arena bench kernels [--rows R] [--cols C] [--batch N] [--threads T] [--seconds S]
// [--weights-mib M]`: the CPU matmul of every weight type arena can write (f32, f16, bf16,
// q8_0, q5_0, q4_K, q6_K) on an R x C matrix (default 896 x 4864, Qwen2.5-0.5B's ffn_down):
//   decode  — one activation row against copies of the matrix filling M MiB (more than the
//             caches), taken in turn as a forward pass takes its layers: weight GB/s, as a
//             fraction of the memory read bandwidth;
//   batched — N activation rows against one matrix: GFLOP/s (2 per multiply-add), as a fraction
//             of the int8 dot peak (quantized types) or the F32 FMA peak (float types).
// The measuring is engine::run_kernel_bench (engine/tools/kernel_bench.h).
#include "arena/cli/bench_kernels.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "engine/tools/kernel_bench.h"

namespace arena::cli {

void add_bench_kernels(CLI::App& bench, Action& action) {
  auto* cmd =
      bench.add_subcommand("kernels", "CPU matmul GB/s and GFLOP/s per weight type against measured limits");
  auto flags = std::make_shared<engine::KernelBenchOptions>();
  cmd->add_option("--rows", flags->rows, "Weight rows")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--cols", flags->cols, "Weight columns (a multiple of 256)")
      ->check(CLI::Range(int64_t{256}, int64_t{1} << 20));
  cmd->add_option("--batch", flags->batch, "Activation rows of the batched figure")
      ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  cmd->add_option("--threads", flags->threads, "Compute threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seconds", flags->seconds, "Seconds per figure")->check(CLI::Range(0.01, 60.0));
  cmd->add_option(
         "--weights-mib", flags->weights_mib,
         "MiB of weight copies for the decode figure (default: 4x the last-level cache, at least 256)")
      ->check(CLI::Range(int64_t{1}, int64_t{8192}));
  cmd->callback([flags, &action] {
    action = [flags] {
      auto done = engine::run_kernel_bench(*flags, stdout);
      return done ? 0 : fail("bench kernels", done.error().message);
    };
  });
}

}  // namespace arena::cli
