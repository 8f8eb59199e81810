// The subcommand registry of the `arena` executable. Each subcommand lives in its own
// arena/cli/<name>_command.cpp and is listed once in all_commands().
#pragma once

#include <functional>
#include <span>

namespace CLI {
class App;
}

namespace arena::cli {

// What a parsed subcommand runs; returns the process exit code.
using Action = std::function<int()>;

// Registers one subcommand on `root`; when the command line chooses it, its callback stores
// the work to do in `action` (so nothing runs while parsing).
using Registrar = void (*)(CLI::App& root, Action& action);

// Every subcommand, in the order `arena --help` lists them.
std::span<const Registrar> all_commands();

// Exit code for a command-line usage error (unknown subcommand, bad flag).
inline constexpr int kUsageExitCode = 2;

}  // namespace arena::cli
