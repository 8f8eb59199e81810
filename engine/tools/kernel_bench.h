// The CPU kernel benchmark of `arena bench kernels` (engine_tools): matmul GB/s and GFLOP/s per
// weight type next to the machine's own limits (read bandwidth, FMA and int8-dot peaks) measured in
// the same run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <expected>

#include "engine/error.h"

namespace engine {

struct KernelBenchOptions {
  int64_t rows = 896;       // weight rows
  int64_t cols = 4864;      // weight columns (a multiple of 256)
  int64_t batch = 64;       // activation rows of the batched figure
  int threads = 0;          // compute threads (0 = all cores)
  double seconds = 0.5;     // per figure
  int64_t weights_mib = 0;  // weight copies for the decode figure (0: 4x the last-level cache, at least 256)
};

// The decode working set in MiB for `options`: weights_mib, or when 0, four times the last-level
// cache the CPU reports (at least 256 MiB, at most 4 GiB).
int64_t decode_working_set_mib(const KernelBenchOptions& options);

// Measures and writes the report to `out`; an Error for bad options or a thread pool that cannot start.
std::expected<void, Error> run_kernel_bench(const KernelBenchOptions& options, std::FILE* out);

}  // namespace engine
