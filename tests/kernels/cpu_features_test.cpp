// CPU feature detection: the reported level is stable and names itself.
#include "kernels/cpu/cpu_features.h"

#include <catch2/catch.hpp>
#include <string>

TEST_CASE("SIMD level is detected once and has a name", "[kernels]") {
  const auto level = kernels::detect_simd_level();
  CHECK(level == kernels::detect_simd_level());
  const std::string name = kernels::to_string(level);
  CHECK((name == "scalar" || name == "avx2" || name == "avx512"));
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    CHECK(level != kernels::SimdLevel::Scalar);
#endif
}
