// Catch2's main for the suites that run the CPU kernels: under ARENA_SIMD (one CTest entry per
// SIMD level, tests/CMakeLists.txt) it first checks that this CPU can run the level asked for,
// and exits 77, which CTest reports as skipped, when it cannot; a path is never "passed" by not
// running it.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/cpu/cpu_features.h"

int main(int argc, char** argv) {
  if (const char* level = std::getenv("ARENA_SIMD"); level != nullptr && *level != '\0')
    if (const auto error = kernels::set_simd_level(level)) {
      std::printf("skipped: ARENA_SIMD=%s\n", error->c_str());
      return 77;
    }
  std::printf("SIMD level: %s (this CPU: %s)\n", kernels::to_string(kernels::simd_level()),
              kernels::to_string(kernels::detect_simd_level()));
  return Catch::Session().run(argc, argv);
}
