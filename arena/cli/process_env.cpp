// The environment reader of the commands (see process_env.h).
#include "arena/cli/process_env.h"

#include <cstdlib>

namespace arena::cli {

std::optional<std::string> process_env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

}  // namespace arena::cli
