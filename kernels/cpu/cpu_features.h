// CPU feature detection: which SIMD paths the CPU kernels may use on this machine, and the one
// they use in this process (the CPU's, or a lower one chosen with ARENA_SIMD).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kernels {

// Ordered: a level can run every path of the levels below it.
enum class SimdLevel { Scalar, Avx2, Avx512 };

// The widest SIMD level this CPU (and OS) supports, detected once.
SimdLevel detect_simd_level();

// The level every kernel dispatch of this process uses: ARENA_SIMD (scalar, avx2, avx512) when
// it is set to a level this CPU can run, else the CPU's. Read once.
SimdLevel simd_level();

// Why ARENA_SIMD is not honoured (unknown name, or above this CPU's level), or "" when it is
// honoured or unset. simd_level() then falls back to the CPU's level.
std::string simd_override_error();

// "scalar", "avx2" or "avx512".
const char* to_string(SimdLevel level);

// The level named `name` ("scalar", "avx2", "avx512"), or nothing.
std::optional<SimdLevel> parse_simd_level(std::string_view name);

}  // namespace kernels
