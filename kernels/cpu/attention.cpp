// CPU paged attention. Work is split into tasks of (KV head, run of query rows); a task first
// gathers its KV head's keys and values for the positions it needs from the paged cache into
// contiguous F32 rows, then each query head of the group scores every visible key, takes the
// softmax and sums the values (on AVX2 in attention_avx2.cpp).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/cpu/attention_rows.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/ops.h"
#include "kernels/quant/dequant.h"
#include "kernels/thread_pool.h"

namespace kernels {

namespace {

struct Scratch {
  std::vector<float> k, v, scores;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

}  // namespace

void paged_attention(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                     const KvLayerView& kv, std::span<const int32_t> block_table, float scale,
                     std::span<float> out, ThreadPool& pool) {
  const int64_t num_rows = static_cast<int64_t>(positions.size());
  const int32_t hd = kv.head_dim;
  assert(num_heads % kv.num_kv_heads == 0);
  assert(q.size() == static_cast<size_t>(num_rows * num_heads * hd) && out.size() == q.size());
  if (num_rows == 0) return;
  const int32_t group = num_heads / kv.num_kv_heads;
  const size_t token_bytes = kv.token_bytes();
  const size_t head_bytes = row_bytes(kv.type, hd);
  // q · k with the F32 dot kernel of the matmul (SIMD where the CPU has it).
  const VecDotFn dot = best_vec_dot(GgmlType::F32);
  // The AVX2 inner loop (scores, softmax with a vectorised exp, value sum) where it applies.
  const bool fast = hd % 8 == 0 && avx2_attention_built() && detect_simd_level() != SimdLevel::Scalar;

  // Tasks: each KV head times runs of query rows, enough to keep every thread busy (later rows
  // see more positions, so more runs than threads even out the causal triangle).
  const int64_t want = 8 * pool.num_threads();
  const int64_t runs = std::clamp<int64_t>((want + kv.num_kv_heads - 1) / kv.num_kv_heads, 1, num_rows);
  const int64_t rows_per_run = (num_rows + runs - 1) / runs;
  const int64_t num_runs = (num_rows + rows_per_run - 1) / rows_per_run;

  pool.run(kv.num_kv_heads * num_runs, [&](int64_t task) {
    const int32_t kvh = static_cast<int32_t>(task / num_runs);
    const int64_t r0 = (task % num_runs) * rows_per_run;
    const int64_t r1 = std::min(num_rows, r0 + rows_per_run);
    int32_t max_pos = 0;
    for (int64_t r = r0; r < r1; ++r) max_pos = std::max(max_pos, positions[static_cast<size_t>(r)]);
    const int64_t ctx = int64_t{max_pos} + 1;
    assert(ctx <= static_cast<int64_t>(block_table.size()) * kv.block_size);

    // K, V of this KV head at positions [0, ctx): [ctx, head_dim] each, as F32.
    Scratch& s = scratch();
    s.k.resize(static_cast<size_t>(ctx * hd));
    s.v.resize(static_cast<size_t>(ctx * hd));
    s.scores.resize(static_cast<size_t>(ctx));
    for (int64_t t = 0; t < ctx; ++t) {
      const int32_t block = block_table[static_cast<size_t>(t / kv.block_size)];
      assert(block >= 0 && block < kv.num_blocks);
      const size_t at =
          (static_cast<size_t>(block) * kv.block_size + static_cast<size_t>(t % kv.block_size)) *
              token_bytes +
          static_cast<size_t>(kvh) * head_bytes;
      dequantize_row(kv.type, kv.k + at, s.k.data() + t * hd, hd);
      dequantize_row(kv.type, kv.v + at, s.v.data() + t * hd, hd);
    }

    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n_visible = int64_t{positions[static_cast<size_t>(r)]} + 1;
      for (int32_t h = kvh * group; h < (kvh + 1) * group; ++h) {
        const float* qh = q.data() + (r * num_heads + h) * hd;
        float* oh = out.data() + (r * num_heads + h) * hd;
        if (fast) {
          avx2_attend_rows(qh, s.k.data(), s.v.data(), n_visible, hd, scale, s.scores.data(), oh);
          continue;
        }
        // scores[t] = scale * <q, k_t> for the visible positions, then softmax.
        std::span<float> scores(s.scores.data(), static_cast<size_t>(n_visible));
        for (int64_t t = 0; t < n_visible; ++t)
          scores[static_cast<size_t>(t)] =
              scale * dot(reinterpret_cast<const std::byte*>(qh),
                          reinterpret_cast<const std::byte*>(s.k.data() + t * hd), hd);
        softmax(scores);
        // out = sum_t p_t v_t
        std::fill(oh, oh + hd, 0.0f);
        for (int64_t t = 0; t < n_visible; ++t) {
          const float p = scores[static_cast<size_t>(t)];
          const float* vt = s.v.data() + t * hd;
          for (int32_t i = 0; i < hd; ++i) oh[i] += p * vt[i];
        }
      }
    }
  });
}

}  // namespace kernels
