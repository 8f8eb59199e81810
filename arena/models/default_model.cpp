// Locating the default model (see default_model.h).
#include "arena/models/default_model.h"

#include <vector>

#include "arena/build_info.h"

namespace arena::models {

namespace {

namespace fs = std::filesystem;

// `start` and the folders above it (at most `levels` of them).
std::vector<fs::path> this_and_above(fs::path start, int levels) {
  std::vector<fs::path> out;
  for (int up = 0; up <= levels && !start.empty(); ++up, start = start.parent_path()) {
    out.push_back(start);
    if (start == start.root_path()) break;
  }
  return out;
}

}  // namespace

std::string default_model_path(const fs::path& config_file, const agents::EnvReader& get_env) {
  if (auto env = get_env ? get_env("ARENA_DEFAULT_MODEL") : std::nullopt; env && !env->empty()) return *env;
  std::error_code ec;
  std::vector<fs::path> candidates;
  if (!config_file.empty())
    for (const auto& dir : this_and_above(fs::absolute(config_file, ec).parent_path(), 3))
      candidates.push_back(dir / kDefaultModelFile);
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const auto& dir : this_and_above(exe.parent_path(), 3))
      candidates.push_back(dir / kDefaultModelFile);
    candidates.push_back(exe.parent_path().parent_path() / "share/arena" / kDefaultModelFile);
  }
  const fs::path checkout_model = fs::path(build::source_dir) / kDefaultModelFile;
  candidates.push_back(checkout_model);
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c.lexically_normal().string();
  return checkout_model.lexically_normal().string();
}

}  // namespace arena::models
