// The forward-pass benchmark behind `arena bench forward` (an engine tool): each of S sequences
// ("streams") gets P pseudo-random prompt tokens in one forward pass (prompt processing), then G
// decode steps each run one forward pass over a batch of S rows, one greedy token per stream
// (aggregate decode, as llama-batched-bench's -npl; S = 1 is single-stream decode at depth P).
// The KV cache starts empty; R runs, the best of each figure is kept. The CPU seconds the process
// used alongside show how much of the machine it got. With `bandwidth`, each decode step is
// followed by a read of as many bytes as the step's weights (the two timed apart).
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <string_view>

#include "engine/core/kv_block_size.h"
#include "engine/core/kv_dtype.h"
#include "engine/error.h"

namespace engine {

struct ForwardBenchOptions {
  int32_t prompt_tokens = 512;  // per stream
  int32_t gen_tokens = 64;      // decode steps (each gives every stream one token)
  int32_t streams = 1;          // sequences decoded together in one batch
  int num_threads = 0;          // 0 = all cores
  int32_t repeat = 3;
  KvDtype kv_dtype = KvDtype::F32;
  int32_t block_size = kDefaultKvBlockSize;  // KV block size in tokens
  // After every decode step, read a buffer as large as the step's weights with the same number
  // of threads, and report the decode's weight GB/s as a fraction of that read bandwidth: the
  // two interleaved step by step, so the machine's drift hits both.
  bool bandwidth = false;
};

// The best speeds over the runs, in tokens per second.
struct ForwardBenchResult {
  double prompt_tokens_per_second = 0;  // prompt tokens of all streams / prompt time
  double decode_tokens_per_second = 0;  // decoded tokens of all streams / decode time (aggregate)
  double decode_of_bandwidth = 0;       // with `bandwidth`: the best run's weight GB/s / read GB/s
};

// Loads the network of the GGUF file at `path` (no tokenizer) and runs the benchmark, sending a
// line of text to `report` for the model, each run and the best figures; or what went wrong.
std::expected<ForwardBenchResult, Error> run_forward_bench(
    const std::string& path, const ForwardBenchOptions& options,
    const std::function<void(std::string_view)>& report);

}  // namespace engine
