// `arena bench forward`: prompt-processing and single-stream decode speed of the transformer
// forward pass on a GGUF model.
#pragma once

namespace CLI {
class App;
}

#include "arena/cli/command.h"

namespace arena::cli {

// Registers `forward` under the `bench` group.
void add_bench_forward(CLI::App& bench, Action& action);

}  // namespace arena::cli
