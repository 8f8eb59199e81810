// store_kv: new K/V rows of a forward pass written into the paged cache through a slot mapping,
// one call per layer for every row of the batch (rather than row by row in engine code).
#include <cassert>
#include <cstring>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/quant/quantize.h"

namespace kernels {

void store_kv(const KvLayerMutView& kv, std::span<const float> k, std::span<const float> v,
              std::span<const int32_t> slots) {
  const auto width = static_cast<size_t>(kv.num_kv_heads) * static_cast<size_t>(kv.head_dim);
  const size_t token_bytes = kv.view().token_bytes();
  assert(k.size() == slots.size() * width && v.size() == k.size());
  assert(kv.type == GgmlType::F32 || kv.type == GgmlType::F16 ||
         (kv.type == GgmlType::Q8_0 && kv.head_dim % 32 == 0));
  [[maybe_unused]] const size_t num_slots =
      static_cast<size_t>(kv.num_blocks) * static_cast<size_t>(kv.block_size);
  for (size_t i = 0; i < slots.size(); ++i) {
    assert(slots[i] >= 0 && static_cast<size_t>(slots[i]) < num_slots);
    const size_t at = static_cast<size_t>(slots[i]) * token_bytes;
    const float* ki = k.data() + i * width;
    const float* vi = v.data() + i * width;
    if (kv.type == GgmlType::F32) {
      std::memcpy(kv.k + at, ki, width * sizeof(float));
      std::memcpy(kv.v + at, vi, width * sizeof(float));
    } else {
      // Q8_0 blocks of 32 never straddle two heads (head_dim is a multiple of 32), so one call
      // per token quantizes each head's row as a call per head would.
      quantize_row(kv.type, ki, kv.k + at, static_cast<int64_t>(width));
      quantize_row(kv.type, vi, kv.v + at, static_cast<int64_t>(width));
    }
  }
}

}  // namespace kernels
