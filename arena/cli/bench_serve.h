// `arena bench serve`: the serving engine under a synthetic agent workload, in each batching
// mode (sequential, static, continuous, continuous + prefix cache) in the same run.
#pragma once

namespace CLI {
class App;
}

#include "arena/cli/command.h"

namespace arena::cli {

// Registers `serve` under the `bench` group.
void add_bench_serve(CLI::App& bench, Action& action);

}  // namespace arena::cli
