// CPU feature detection: which SIMD paths the CPU kernels may use on this machine.
#pragma once

namespace kernels {

enum class SimdLevel { Scalar, Avx2, Avx512 };

// The widest SIMD level this CPU (and OS) supports, detected once.
SimdLevel detect_simd_level();

// "scalar", "avx2" or "avx512".
const char* to_string(SimdLevel level);

}  // namespace kernels
