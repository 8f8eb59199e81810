// CPU feature detection: the reported level is stable and names itself.
#include "kernels/cpu/cpu_features.h"

#include <catch2/catch.hpp>
#include <cstdlib>
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

TEST_CASE("set_simd_level takes a level at most the CPU's, or refuses it with a reason", "[kernels]") {
  using kernels::SimdLevel;
  CHECK(kernels::parse_simd_level("scalar") == SimdLevel::Scalar);
  CHECK(kernels::parse_simd_level("avx2") == SimdLevel::Avx2);
  CHECK(kernels::parse_simd_level("avx512") == SimdLevel::Avx512);
  CHECK_FALSE(kernels::parse_simd_level("AVX2").has_value());
  CHECK_FALSE(kernels::parse_simd_level("").has_value());
  CHECK(SimdLevel::Scalar < SimdLevel::Avx2);
  CHECK(SimdLevel::Avx2 < SimdLevel::Avx512);
  // This process runs under the level CTest gave it (tests/CMakeLists.txt; simd_main.cpp set it),
  // or the CPU's.
  CHECK(kernels::simd_level() <= kernels::detect_simd_level());
  const SimdLevel before = kernels::simd_level();
  const auto unknown = kernels::set_simd_level("AVX2");
  REQUIRE(unknown.has_value());
  CHECK(*unknown == "AVX2 is not a SIMD level (scalar, avx2, avx512)");
  if (kernels::detect_simd_level() < SimdLevel::Avx512) {
    const auto too_wide = kernels::set_simd_level("avx512");
    REQUIRE(too_wide.has_value());
    CHECK(too_wide->find("this CPU runs at most") != std::string::npos);
  }
  CHECK(kernels::simd_level() == before);  // a refused level changes nothing
  CHECK_FALSE(kernels::set_simd_level(kernels::to_string(before)).has_value());
  CHECK(kernels::simd_level() == before);
  const char* env = std::getenv("ARENA_SIMD");
  if (env != nullptr && *env != '\0')
    CHECK(kernels::to_string(kernels::simd_level()) == std::string(env));
  else
    CHECK(kernels::simd_level() == kernels::detect_simd_level());
}
