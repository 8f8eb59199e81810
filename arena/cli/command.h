// The subcommand registry of the `arena` executable. Each subcommand lives in its own
// arena/cli/<name>_command.cpp and is listed once in all_commands().
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "arena/config/web_names.h"

namespace CLI {
class App;
class Validator;
}  // namespace CLI

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

// Prints "arena COMMAND: error: MESSAGE" on stderr and returns 1: the command could not do its
// work (an unreadable file, a failed run). COMMAND is the subcommand path, e.g. "bench serve".
int fail(std::string_view command, std::string_view message);

// The same line for an argument the command cannot use; returns kUsageExitCode (2).
int usage_error(std::string_view command, std::string_view message);

// A flag check: a finite number in [min, max] (NaN and infinities refused), the bounds written as
// given ("0.5 is not in [1, 100]"); a refused value is a usage error (exit 2).
CLI::Validator number_in(double min, double max);
// The same with no upper bound: a finite number >= min.
CLI::Validator number_at_least(double min);

// A flag check by one of config/web_names.h's checks (a Host name, a browser origin): the error it
// gives, or the value replaced by its normal form. `what` names the value in the help ("HOST").
CLI::Validator name_check(config::NameCheck (*check)(std::string_view), const char* what);

}  // namespace arena::cli
