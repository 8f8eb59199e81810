// CUDA device discovery through the runtime API.
#include <cuda_runtime.h>

#include "kernels/cuda/device.h"

namespace kernels::cuda {

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> devices;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return devices;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    devices.push_back({i, prop.name, prop.major, prop.minor, prop.totalGlobalMem});
  }
  return devices;
}

}  // namespace kernels::cuda
