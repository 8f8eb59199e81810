// `arena bench kernels`: GB/s and GFLOP/s of the CPU matmul per weight type, next to this
// machine's own limits measured in the same run.
#pragma once

namespace CLI {
class App;
}

#include "arena/cli/command.h"

namespace arena::cli {

// Registers `kernels` under the `bench` group.
void add_bench_kernels(CLI::App& bench, Action& action);

}  // namespace arena::cli
