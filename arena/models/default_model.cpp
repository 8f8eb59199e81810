// Locating the default model (see default_model.h).
#include "arena/models/default_model.h"

#include <filesystem>

#include "arena/models/model_registry.h"

namespace arena::models {

std::string default_model_path() {
  if (auto env = process_env("ARENA_DEFAULT_MODEL")) return *env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // build/bin/arena: the checkout is two folders up; allow a little more for other layouts.
    auto dir = exe.parent_path();
    for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
      const auto candidate = dir / kDefaultModelFile;
      if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
      if (dir == dir.root_path()) break;
    }
    // Not made yet: name the place scripts/quickstart.sh puts it (the checkout of build/bin/arena).
    if (exe.parent_path().filename() == "bin")
      return (exe.parent_path().parent_path().parent_path() / kDefaultModelFile).lexically_normal().string();
  }
  return std::filesystem::absolute(kDefaultModelFile, ec).string();
}

}  // namespace arena::models
