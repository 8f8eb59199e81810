// CPU feature detection through the compiler's cpuid builtins, and the process's chosen level.
#include "kernels/cpu/cpu_features.h"

#include <atomic>

namespace kernels {

namespace {

// The level set by set_simd_level, or -1 for the CPU's.
std::atomic<int> chosen_level{-1};

}  // namespace

SimdLevel detect_simd_level() {
  static const SimdLevel level = [] {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
      return SimdLevel::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return SimdLevel::Avx2;
#endif
    return SimdLevel::Scalar;
  }();
  return level;
}

SimdLevel simd_level() {
  const int chosen = chosen_level.load(std::memory_order_relaxed);
  return chosen < 0 ? detect_simd_level() : static_cast<SimdLevel>(chosen);
}

std::optional<std::string> set_simd_level(std::string_view name) {
  const auto wanted = parse_simd_level(name);
  if (!wanted) return std::string(name) + " is not a SIMD level (scalar, avx2, avx512)";
  if (*wanted > detect_simd_level())
    return std::string(name) + ": this CPU runs at most " + to_string(detect_simd_level());
  chosen_level.store(static_cast<int>(*wanted), std::memory_order_relaxed);
  return std::nullopt;
}

const char* to_string(SimdLevel level) {
  switch (level) {
    case SimdLevel::Avx512:
      return "avx512";
    case SimdLevel::Avx2:
      return "avx2";
    case SimdLevel::Scalar:
      break;
  }
  return "scalar";
}

std::optional<SimdLevel> parse_simd_level(std::string_view name) {
  for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512})
    if (name == to_string(level)) return level;
  return std::nullopt;
}

}  // namespace kernels
