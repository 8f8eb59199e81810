// engine::build_features (engine/api.h): the kernels' SIMD level and CUDA devices, so callers of
// the API never include kernel headers.
#include "engine/api.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cuda/device.h"

namespace engine {

BuildFeatures build_features() {
  BuildFeatures features;
  features.simd = kernels::to_string(kernels::simd_level());
  features.simd_cpu = kernels::to_string(kernels::detect_simd_level());
#ifdef ARENA_WITH_CUDA
  features.cuda_compiled = true;
  for (const auto& d : kernels::cuda::list_devices())
    features.cuda_devices.push_back(
        AcceleratorInfo{d.index, d.name, d.compute_major, d.compute_minor, d.total_memory_bytes});
#endif
  return features;
}

void set_weight_repack(bool enabled) {
  kernels::set_repack_layout(enabled);
}

std::optional<std::string> set_simd_level(std::string_view level) {
  return kernels::set_simd_level(level);
}

}  // namespace engine
