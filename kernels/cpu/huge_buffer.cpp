// 2 MiB-aligned buffers advised to use huge pages (see huge_buffer.h).
#include "kernels/cpu/huge_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

namespace kernels {

void HugeBufferFree::operator()(void* p) const {
  std::free(p);
}

HugeBuffer allocate_huge_buffer(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t size = (std::max<size_t>(bytes, 1) + kHugePage - 1) / kHugePage * kHugePage;
  HugeBuffer buffer(static_cast<std::byte*>(std::aligned_alloc(kHugePage, size)));
#ifdef MADV_HUGEPAGE
  if (buffer) ::madvise(buffer.get(), size, MADV_HUGEPAGE);
#endif
  return buffer;
}

}  // namespace kernels
