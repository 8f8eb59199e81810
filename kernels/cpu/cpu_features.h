// CPU feature detection: which SIMD paths the CPU kernels may use on this machine, and the one
// they use in this process (the CPU's, or a lower one the caller chose: arena's main reads it from
// ARENA_SIMD; the kernels never read the environment).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kernels {

// Ordered: a level can run every path of the levels below it.
enum class SimdLevel { Scalar, Avx2, Avx512 };

// The widest SIMD level this CPU (and OS) supports, detected once.
SimdLevel detect_simd_level();

// The level every kernel dispatch of this process uses: the one set_simd_level chose, else the
// CPU's.
SimdLevel simd_level();

// Makes every kernel dispatch of this process use the level named ("scalar", "avx2", "avx512"),
// which must be one this CPU runs. Call it before any kernel runs: the matmul dispatch is chosen
// once, at its first use. An unknown name or a level above the CPU's is refused (the message
// says why) and changes nothing.
std::optional<std::string> set_simd_level(std::string_view name);

// "scalar", "avx2" or "avx512".
const char* to_string(SimdLevel level);

// The level named `name` ("scalar", "avx2", "avx512"), or nothing.
std::optional<SimdLevel> parse_simd_level(std::string_view name);

}  // namespace kernels
