// Main of the CUDA test executable: exits 77, which CTest reports as skipped, when no CUDA
// device is present; otherwise runs the [cuda] tests against the CPU reference.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>

#include "kernels/cuda/device.h"

int main(int argc, char** argv) {
  if (kernels::cuda::list_devices().empty()) {
    std::puts("SKIPPED: no CUDA device present; the CUDA kernels were compiled but not run");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
