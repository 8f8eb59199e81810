// CUDA device discovery. Declared for every build; defined only when CUDA is compiled in
// (ARENA_WITH_CUDA), so callers guard their use with that macro.
#pragma once

#include <string>
#include <vector>

namespace kernels::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  size_t total_memory_bytes = 0;
};

// Every CUDA device the driver reports; empty when there is no driver or no device.
std::vector<DeviceInfo> list_devices();

}  // namespace kernels::cuda
