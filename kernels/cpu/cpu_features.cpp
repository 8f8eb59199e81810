// CPU feature detection through the compiler's cpuid builtins, and the ARENA_SIMD override.
#include "kernels/cpu/cpu_features.h"

#include <cstdlib>

namespace kernels {

namespace {

struct Choice {
  SimdLevel level;
  std::string error;
};

const Choice& choice() {
  static const Choice c = [] {
    const SimdLevel cpu = detect_simd_level();
    const char* env = std::getenv("ARENA_SIMD");
    if (env == nullptr || *env == '\0') return Choice{cpu, ""};
    const auto wanted = parse_simd_level(env);
    if (!wanted)
      return Choice{cpu, std::string("ARENA_SIMD=") + env + " is not a SIMD level (scalar, avx2, avx512)"};
    if (*wanted > cpu)
      return Choice{cpu, std::string("ARENA_SIMD=") + env + ": this CPU runs at most " + to_string(cpu)};
    return Choice{*wanted, ""};
  }();
  return c;
}

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
  return choice().level;
}

std::string simd_override_error() {
  return choice().error;
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
