// The forward-pass benchmark behind `arena bench forward` (an engine tool): P pseudo-random
// prompt tokens in one forward pass (prompt processing), then G greedy tokens one at a time
// (single-stream decode), from an empty F32 KV cache, R times; the best of each is kept. The CPU
// seconds the process used alongside show how much of the machine it got.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <string_view>

#include "engine/error.h"

namespace engine {

struct ForwardBenchOptions {
  int32_t prompt_tokens = 512;
  int32_t gen_tokens = 64;
  int num_threads = 0;  // 0 = all cores
  int32_t repeat = 3;
};

// The best speeds over the runs, in tokens per second.
struct ForwardBenchResult {
  double prompt_tokens_per_second = 0;
  double decode_tokens_per_second = 0;
};

// Loads the network of the GGUF file at `path` (no tokenizer) and runs the benchmark, sending a
// line of text to `report` for the model, each run and the best figures; or what went wrong.
std::expected<ForwardBenchResult, Error> run_forward_bench(
    const std::string& path, const ForwardBenchOptions& options,
    const std::function<void(std::string_view)>& report);

}  // namespace engine
