// The inner loop of CPU paged attention for one query head, over keys and values already
// gathered as contiguous F32 rows: the AVX2 version (attention_avx2.cpp) beside the portable
// loop in attention.cpp.
#pragma once

#include <cstdint>

namespace kernels {

// out[hd] = softmax(scale * q · k_t for t < n) · v, with k and v [n, hd] row-major and scores
// [n] scratch; hd a multiple of 8. Only call when avx2_attention_built() and the CPU has AVX2.
void avx2_attend_rows(const float* q, const float* k, const float* v, int64_t n, int32_t hd, float scale,
                      float* scores, float* out);

// True when avx2_attend_rows was compiled with AVX2 (an x86 build).
bool avx2_attention_built();

}  // namespace kernels
