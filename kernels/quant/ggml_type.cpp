// The table of ggml element types: block sizes and bytes per block (ggml-common.h layouts).
#include "kernels/quant/ggml_type.h"

#include <array>
#include <cassert>

namespace kernels {

namespace {

struct Entry {
  GgmlType type;
  GgmlTypeTraits traits;
};

constexpr std::array kTable{
    Entry{GgmlType::F32, {"f32", 1, 4}},
    Entry{GgmlType::F16, {"f16", 1, 2}},
    Entry{GgmlType::BF16, {"bf16", 1, 2}},
    Entry{GgmlType::Q4_0, {"q4_0", 32, 2 + 16}},
    Entry{GgmlType::Q4_1, {"q4_1", 32, 2 + 2 + 16}},
    Entry{GgmlType::Q5_0, {"q5_0", 32, 2 + 4 + 16}},
    Entry{GgmlType::Q5_1, {"q5_1", 32, 2 + 2 + 4 + 16}},
    Entry{GgmlType::Q8_0, {"q8_0", 32, 2 + 32}},
    Entry{GgmlType::Q8_1, {"q8_1", 32, 4 + 32}},
    Entry{GgmlType::Q2_K, {"q2_K", 256, 16 + 64 + 2 + 2}},
    Entry{GgmlType::Q3_K, {"q3_K", 256, 32 + 64 + 12 + 2}},
    Entry{GgmlType::Q4_K, {"q4_K", 256, 2 + 2 + 12 + 128}},
    Entry{GgmlType::Q5_K, {"q5_K", 256, 2 + 2 + 12 + 32 + 128}},
    Entry{GgmlType::Q6_K, {"q6_K", 256, 128 + 64 + 16 + 2}},
    Entry{GgmlType::Q8_K, {"q8_K", 256, 4 + 256 + 32}},
};

}  // namespace

std::optional<GgmlTypeTraits> ggml_type_traits(uint32_t type_id) {
  for (const auto& e : kTable)
    if (static_cast<uint32_t>(e.type) == type_id) return e.traits;
  return std::nullopt;
}

GgmlTypeTraits traits(GgmlType type) {
  const auto t = ggml_type_traits(static_cast<uint32_t>(type));
  assert(t);
  return *t;
}

}  // namespace kernels
