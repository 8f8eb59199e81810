// Scratch activations on a backend's device: a buffer grown to the largest step seen, reused.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/ops.h"

namespace engine {

// The first `count` floats of `buffer`, reallocated on `backend` when it holds fewer.
inline std::span<float> reserve(kernels::Backend& backend, kernels::DeviceBuffer& buffer, int64_t count) {
  const auto size = static_cast<size_t>(count);
  if (buffer.size() < size) buffer = backend.allocate(size);
  return buffer.first(size);
}

}  // namespace engine
