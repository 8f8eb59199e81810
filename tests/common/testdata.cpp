// Test data lookup: environment override first, then the folder beside the source tree.
#include "tests/common/testdata.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace arena::test {

std::optional<std::filesystem::path> testdata_dir() {
  std::filesystem::path dir;
  if (const char* env = std::getenv("ARENA_TESTDATA"); env && *env)
    dir = env;
  else
    dir = std::filesystem::path(ARENA_SOURCE_DIR) / ".." / "shared" / "testdata";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
  return std::filesystem::weakly_canonical(dir, ec);
}

std::optional<std::filesystem::path> testdata_file(const std::string& relative) {
  auto dir = testdata_dir();
  if (!dir) return std::nullopt;
  auto path = *dir / relative;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  return path;
}

std::filesystem::path source_data_dir() {
  return std::filesystem::path(ARENA_SOURCE_DIR) / "tests" / "data";
}

std::filesystem::path fuzz_data_dir() {
  const auto dir = source_data_dir() / "fuzz";
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? dir : std::filesystem::path();
}

std::vector<std::filesystem::path> fuzz_data_files(const std::string& prefix) {
  std::vector<std::filesystem::path> files;
  const auto dir = fuzz_data_dir();
  REQUIRE_FALSE(dir.empty());
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().starts_with(prefix)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE_FALSE(files.empty());
  return files;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string fuzz_input(const std::string& name, const std::string& fallback) {
  const auto dir = fuzz_data_dir();
  if (dir.empty()) return fallback;
  const std::string bytes = read_bytes(dir / name);
  REQUIRE(bytes.size() > 1);
  return bytes.substr(1);
}

}  // namespace arena::test
