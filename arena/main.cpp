// The `arena` executable: parses the command line, runs one subcommand, and turns start-up
// exceptions (bad config, unreadable model) into one error line and a non-zero exit code.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "arena/cli/command.h"
#include "arena/cli/version_info.h"
#include "engine/api.h"

namespace {

// The first argument that is not an option, when it names no subcommand.
const char* unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return nullptr;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == argv[1]) return nullptr;
  return argv[1];
}

// The subcommand path of `app` below the root ("", "generate", "bench serve").
std::string command_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* a = &app; a->get_parent() != nullptr; a = a->get_parent())
    path = path.empty() ? a->get_name() : a->get_name() + " " + path;
  return path;
}

// "arena CMD: error: MESSAGE", then CMD's help (its usage line reads "Usage: arena CMD ..."); exit 2.
int usage_error(const CLI::App& app, std::string_view message) {
  const std::string path = command_path(app);
  const std::string prefix = path.empty() ? "arena" : "arena " + path;
  const std::string parent = app.get_parent() ? prefix.substr(0, prefix.rfind(' ')) : "";
  fmt::print(stderr, "{}: error: {}\n\n{}", prefix, message, app.help(parent));
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
    // The innermost subcommand given ("bench serve" for `arena bench serve --bogus`).
    const CLI::App* failed = &app;
    while (!failed->get_subcommands().empty()) failed = failed->get_subcommands().back();
    return usage_error(*failed, e.what());
  }
  if (!action) return usage_error(app, "no subcommand given");
  // ARENA_NO_REPACK=1 keeps every weight matrix in its file layout (to compare the kernels).
  if (const char* no_repack = std::getenv("ARENA_NO_REPACK");
      no_repack != nullptr && std::strcmp(no_repack, "1") == 0)
    engine::set_weight_repack(false);
  // ARENA_SIMD=avx2 (or scalar) runs the CPU kernels at a lower level; a level the kernels cannot
  // honour is refused, not silently widened or narrowed.
  if (const char* simd = std::getenv("ARENA_SIMD"); simd != nullptr && *simd != '\0')
    if (const auto error = engine::set_simd_level(simd)) {
      fmt::print(stderr, "arena: error: ARENA_SIMD={}\n", *error);
      return arena::cli::kUsageExitCode;
    }

  try {
    return action();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
