// Where the config tests find the repository's files (configs/, tests/data/configs/): the
// source folder recorded in the build's CMakeCache.txt beside the test executable, or
// $ARENA_SOURCE_DIR when set.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace arena::test {

// The source tree of this build, or nullopt when it cannot be found.
inline std::optional<std::filesystem::path> source_dir() {
  if (const char* env = std::getenv("ARENA_SOURCE_DIR"); env && *env) return std::filesystem::path(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  // <build>/tests/<suite>: the cache is in <build>.
  std::ifstream cache(exe.parent_path().parent_path() / "CMakeCache.txt");
  const std::string key = "arena_SOURCE_DIR:STATIC=";
  for (std::string line; std::getline(cache, line);)
    if (line.starts_with(key)) return std::filesystem::path(line.substr(key.size()));
  return std::nullopt;
}

}  // namespace arena::test
