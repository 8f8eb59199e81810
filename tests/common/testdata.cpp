// Test data lookup: environment override first, then the folder beside the source tree.
#include "tests/common/testdata.h"

#include <cstdlib>

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

}  // namespace arena::test
