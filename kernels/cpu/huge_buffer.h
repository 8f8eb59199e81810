// A buffer laid out as the engine lays out its repacked weights: 2 MiB-aligned and advised to
// use transparent huge pages, so bandwidth measurements read memory the way decode does.
#pragma once

#include <cstddef>
#include <memory>

namespace kernels {

struct HugeBufferFree {
  void operator()(void* p) const;
};
using HugeBuffer = std::unique_ptr<std::byte[], HugeBufferFree>;

// `bytes` bytes (rounded up to 2 MiB), 2 MiB-aligned, advised MADV_HUGEPAGE (advice only: the
// kernel may leave 4 KiB pages); null when the memory cannot be had. Contents uninitialised.
HugeBuffer allocate_huge_buffer(size_t bytes);

}  // namespace kernels
