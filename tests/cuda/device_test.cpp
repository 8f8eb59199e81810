// CUDA device discovery on a machine that has a device (the runner skips otherwise).
#include "kernels/cuda/device.h"

#include <catch2/catch.hpp>

TEST_CASE("CUDA devices report a name, compute capability and memory", "[cuda]") {
  const auto devices = kernels::cuda::list_devices();
  REQUIRE(!devices.empty());
  for (const auto& d : devices) {
    CHECK(!d.name.empty());
    CHECK(d.compute_major >= 5);
    CHECK(d.total_memory_bytes > 0);
  }
}
