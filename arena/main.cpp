// The `arena` executable: parses the command line, runs one subcommand, and turns start-up
// exceptions (bad config, unreadable model) into one error line and a non-zero exit code.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string_view>

#include "arena/cli/command.h"
#include "arena/cli/version_info.h"

namespace {

// The first argument that is not an option, when it names no subcommand.
const char* unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return nullptr;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == argv[1]) return nullptr;
  return argv[1];
}

int usage_error(const CLI::App& app, std::string_view message) {
  fmt::print(stderr, "arena: error: {}\n\n{}", message, app.help());
  return arena::cli::kUsageExitCode;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"arena: chess and janggi tournaments between LLM agents, with an in-process serving engine",
               "arena"};
  app.set_version_flag("--version", arena::cli::version_text());
  app.require_subcommand(0, 1);
  app.fallthrough(false);

  arena::cli::Action action;
  for (auto registrar : arena::cli::all_commands()) registrar(app, action);

  if (const char* name = unknown_subcommand(app, argc, argv))
    return usage_error(app, fmt::format("unknown subcommand '{}'", name));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* failed = &app;
    for (const auto* sub : app.get_subcommands()) failed = sub;
    return usage_error(*failed, e.what());
  }
  if (!action) return usage_error(app, "no subcommand given");

  try {
    return action();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
