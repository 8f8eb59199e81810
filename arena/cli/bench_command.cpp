// `arena bench`: a group of speed measurements against reference implementations. Each
// measurement is a subcommand of `bench`, registered from its own file (bench_perft.cpp, ...).
#include <CLI/CLI.hpp>
#include <array>

#include "arena/cli/bench_forward.h"
#include "arena/cli/bench_kernels.h"
#include "arena/cli/bench_perft.h"
#include "arena/cli/bench_serve.h"
#include "arena/cli/command.h"

namespace arena::cli {

namespace {

// The `bench` subcommands; a new measurement adds its registrar here.
constexpr std::array kBenchRegistrars{
    &add_bench_perft,
    &add_bench_forward,
    &add_bench_serve,
    &add_bench_kernels,
};

}  // namespace

void add_bench_command(CLI::App& root, Action& action) {
  auto* bench = root.add_subcommand("bench", "Measure arena's speed against reference implementations");
  bench->require_subcommand(1);
  for (auto registrar : kBenchRegistrars) registrar(*bench, action);
}

}  // namespace arena::cli
