// The process environment, read here at the application's edge and nowhere in library code:
// the commands pass this reader to the config loader, the model registry and the runner
// (agents::EnvReader), which read `${VAR}` paths, PATH, API keys and ARENA_DEFAULT_MODEL through it.
#pragma once

#include <optional>
#include <string>

namespace arena::cli {

// The value of environment variable `name` (unset or empty: nullopt).
std::optional<std::string> process_env(const std::string& name);

}  // namespace arena::cli
