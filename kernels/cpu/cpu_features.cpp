// CPU feature detection through the compiler's cpuid builtins.
#include "kernels/cpu/cpu_features.h"

namespace kernels {

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

}  // namespace kernels
