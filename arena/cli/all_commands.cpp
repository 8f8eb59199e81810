// The list of subcommands. A new subcommand adds its registrar declaration and one entry here.
#include <array>

#include "arena/cli/command.h"

namespace arena::cli {

void add_version_command(CLI::App& root, Action& action);
void add_synth_command(CLI::App& root, Action& action);
void add_perft_command(CLI::App& root, Action& action);
void add_bench_command(CLI::App& root, Action& action);
void add_eval_command(CLI::App& root, Action& action);
void add_tokenize_command(CLI::App& root, Action& action);
void add_plan_command(CLI::App& root, Action& action);
void add_generate_command(CLI::App& root, Action& action);
void add_run_command(CLI::App& root, Action& action);
void add_demo_command(CLI::App& root, Action& action);
void add_serve_command(CLI::App& root, Action& action);
void add_dataset_command(CLI::App& root, Action& action);
void add_ratings_command(CLI::App& root, Action& action);
void add_view_command(CLI::App& root, Action& action);

std::span<const Registrar> all_commands() {
  static constexpr std::array registrars{
      &add_version_command, &add_synth_command,    &add_perft_command, &add_bench_command,
      &add_eval_command,    &add_tokenize_command, &add_plan_command,  &add_generate_command,
      &add_run_command,     &add_demo_command,     &add_serve_command, &add_dataset_command,
      &add_ratings_command, &add_view_command,
  };
  return registrars;
}

}  // namespace arena::cli
