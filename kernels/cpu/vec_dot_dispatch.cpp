// Picks the dot-product kernel per weight type from the detected SIMD level.
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/dot_activation.h"

namespace kernels {

bool cpu_has_avx512_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx512vnni");
  return has;
#else
  return false;
#endif
}

SimdLevel vec_dot_level_for(SimdLevel level) {
  if (level == SimdLevel::Avx512 && !cpu_has_avx512_vnni()) return SimdLevel::Avx2;
  return level;
}

SimdLevel vec_dot_level() {
  static const SimdLevel level = vec_dot_level_for(simd_level());
  return level;
}

SimdLevel cpu_vec_dot_level() {
  static const SimdLevel level = vec_dot_level_for(detect_simd_level());
  return level;
}

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has;
#else
  return false;
#endif
}

VecDotFn vec_dot_for(GgmlType type, SimdLevel level) {
  if (level == SimdLevel::Avx512 && cpu_has_avx512_bf16())
    if (VecDotFn f = avx512bf16_vec_dot(type)) return f;
  if (level == SimdLevel::Avx512)
    if (VecDotFn f = avx512_vec_dot(type)) return f;
  if (level == SimdLevel::Avx512 || level == SimdLevel::Avx2)
    if (VecDotFn f = avx2_vec_dot(type)) return f;
  return scalar_vec_dot(type);
}

void convert_activation_row(GgmlType type, SimdLevel level, const float* x, std::byte* dst, int64_t n) {
  static const QuantizeRowFn q8_0 = avx2_quantize_row_q8_0();
  if (type == GgmlType::Q8_0 && level != SimdLevel::Scalar && q8_0 != nullptr) return q8_0(x, dst, n);
  quantize_activation_row(type, x, dst, n);
}

VecDotRowsFn vec_dot_rows_for(GgmlType type, SimdLevel level) {
  if (level == SimdLevel::Avx512 && cpu_has_avx512_bf16())
    if (VecDotRowsFn f = avx512bf16_vec_dot_rows(type)) return f;
  if (level == SimdLevel::Avx512)
    if (VecDotRowsFn f = avx512_vec_dot_rows(type)) return f;
  if (level == SimdLevel::Avx512 || level == SimdLevel::Avx2) return avx2_vec_dot_rows(type);
  return nullptr;
}

}  // namespace kernels
