// The inner step of CPU paged attention: one query head's online softmax (flash-attention
// style: a running max, a running sum and an unnormalised output) advanced over one tile of up
// to kAttentionTile keys and values, given as pointers to F32 rows — straight into an F32 cache,
// or into a tile converted once for every query head of a GQA group and every query row of a
// task. Tiles start at positions that are multiples of kAttentionTile, so a row's result depends
// only on its own query and the keys and values it sees, never on the other rows of a call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/tensor.h"

namespace kernels {

// Keys and values per tile.
inline constexpr int32_t kAttentionTile = 16;

// One query head's state between tiles: out = acc / sum once every tile is done.
struct OnlineSoftmax {
  float max;   // the largest score so far (-inf before the first tile)
  float sum;   // sum of e^(score - max) so far
  float* acc;  // [head_dim] sum of e^(score - max) * v so far
};

// One tile: k[t], v[t] point at head_dim floats for t < kAttentionTile; rows past the tile's
// last key point at zeros (they are read, never counted).
struct KvTile {
  const float* k[kAttentionTile];
  const float* v[kAttentionTile];
};

// Advances `state` over keys t < n (1 <= n <= kAttentionTile) of `tile`: score_t = scores.of(q·k_t).
// The portable loop (attention.cpp).
void attend_tile(const float* q, const KvTile& tile, int32_t n, int32_t head_dim,
                 const AttentionScores& scores, OnlineSoftmax& state);

// The same on AVX2 + FMA (attention_avx2.cpp); head_dim a multiple of 8. Only call when
// avx2_attention_built() and the CPU has AVX2.
void avx2_attend_tile(const float* q, const KvTile& tile, int32_t n, int32_t head_dim,
                      const AttentionScores& scores, OnlineSoftmax& state);

// out[head_dim] = state.acc / state.sum on AVX2 (head_dim a multiple of 8).
void avx2_finish(const OnlineSoftmax& state, int32_t head_dim, float* out);

// F16 -> F32 for n values (n a multiple of 8) with F16C, as dequantize_row_f16 does it.
void avx2_f16_to_f32(const std::byte* src, float* dst, int32_t n);

// True when the avx2_* functions were compiled with AVX2 (an x86 build).
bool avx2_attention_built();

// The same on AVX-512 (attention_avx512bw.cpp) for 1 to 3 query heads that see the same keys
// (heads of one GQA group), each head exactly as avx2_attend_tile advances it; head_dim a
// multiple of 16. Only call when avx512_attention_built() and the CPU has AVX-512.
void avx512_attend_tile_heads(const float* const* q, int32_t num_heads, const KvTile& tile, int32_t n,
                              int32_t head_dim, const AttentionScores& scores, OnlineSoftmax* const* states);
void avx512_finish(const OnlineSoftmax& state, int32_t head_dim, float* out);
void avx512_f16_to_f32(const std::byte* src, float* dst, int32_t n);
bool avx512_attention_built();

}  // namespace kernels
