// The activation side of weight x activation dot products. As in llama.cpp, F32 activations are
// converted to a "dot type" that pairs with the weight type before the dot product:
// F32 -> F32, F16 -> F16, BF16 -> BF16, Q8_0 / Q4_0 / Q5_0 -> Q8_0, K-quants -> Q8_K.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/ggml_type.h"

namespace kernels {

// The type activations take for a dot product with rows of `weight_type`.
GgmlType dot_type(GgmlType weight_type);

// Converts n floats to `type` (F32, F16, BF16, Q8_0 or Q8_K) into dst (row_bytes(type, n) bytes).
// Q8_0: per 32 values d = max|x| / 127, q = round(x / d); Q8_K: per 256 values d = -max/127 where
// max is the value of largest magnitude, q = round(x / d) capped at 127, plus sums of each 16 q.
void quantize_activation_row(GgmlType type, const float* x, std::byte* dst, int64_t n);

}  // namespace kernels
