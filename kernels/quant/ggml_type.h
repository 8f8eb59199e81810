// ggml's tensor element types as stored in GGUF files: ids, block sizes and byte sizes.
// Values are ggml's enum ggml_type; sizes follow ggml's block layouts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace kernels {

enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  BF16 = 30,
};

struct GgmlTypeTraits {
  const char* name;    // "f32", "q4_K", ... (ggml's spelling)
  int64_t block_size;  // elements per block
  size_t block_bytes;  // bytes per block
};

// Traits of a known type id; nullopt for ids this project does not know.
std::optional<GgmlTypeTraits> ggml_type_traits(uint32_t type_id);

// Traits of a known type (never fails).
GgmlTypeTraits traits(GgmlType type);

// Bytes of a row of `n` elements of `type`; n must be a multiple of the block size.
inline size_t row_bytes(GgmlType type, int64_t n) {
  const auto t = traits(type);
  return static_cast<size_t>(n / t.block_size) * t.block_bytes;
}

}  // namespace kernels
