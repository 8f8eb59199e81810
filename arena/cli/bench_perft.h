// `arena bench perft`: perft speed of arena's chess and janggi move generators next to
// Stockfish's and Fairy-Stockfish's `go perft` on the same positions, in the same run.
#pragma once

namespace CLI {
class App;
}

#include "arena/cli/command.h"

namespace arena::cli {

// Registers `perft` under the `bench` group.
void add_bench_perft(CLI::App& bench, Action& action);

}  // namespace arena::cli
