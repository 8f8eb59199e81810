// CPU paged attention, read in place through the block tables. One call covers every sequence
// of a step: the work is split into tasks of (sequence, KV head, run of query rows), handed to
// the pool at once, heaviest first. A task walks its sequence's positions in tiles of
// kAttentionTile keys: each tile's K/V rows are used straight from an F32 cache or converted once
// (F16, Q8_0) into a small F32 tile, then every query head of the KV head's group and every row
// of the task advance their online softmax over it (attention_tile.h; AVX2 in attention_avx2.cpp,
// AVX-512 in attention_avx512bw.cpp).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/cpu/attention_tile.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/quant/dequant.h"
#include "kernels/thread_pool.h"

namespace kernels {

namespace {

// Accumulator floats a task may hold (rows x group x head_dim): bounds its rows so the state of
// a task stays in L1/L2 while tiles stream past.
constexpr int64_t kTaskAccFloats = 8192;

// Rows [r0, r1) of sequence `seq` against KV head `kvh`; cost = keys the rows see.
struct Task {
  int32_t seq, kvh;
  int32_t r0, r1;
  int64_t cost;
};

struct Scratch {
  std::vector<float> k, v, zeros, acc;  // [tile, hd] x2, [hd], [rows * group * hd]
  std::vector<OnlineSoftmax> states;    // [rows * group]
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Splits the rows of every sequence into runs for about 4 tasks per thread (later rows of a
// prefill see more positions, so many small tasks even out the causal triangle), at most
// max_rows rows each; tasks are ordered heaviest first.
void plan_tasks(std::span<const int32_t> positions, std::span<const AttentionSeq> seqs, const KvLayerView& kv,
                int num_threads, int64_t max_rows, std::vector<Task>& tasks) {
  tasks.clear();
  const int32_t num_kv_heads = kv.num_kv_heads;
  auto keys = [&](int32_t r) {
    const int32_t pos = positions[static_cast<size_t>(r)];
    return int64_t{pos} + 1 - kv.first_visible(pos);
  };
  int64_t total = 0;
  for (const AttentionSeq& s : seqs)
    for (int32_t r = s.first_row; r < s.first_row + s.num_rows; ++r) total += keys(r);
  const int64_t runs_wanted =
      std::max<int64_t>(1, (4 * int64_t{num_threads} + num_kv_heads - 1) / num_kv_heads);
  const int64_t target = std::max<int64_t>(1, total / runs_wanted);
  for (int32_t si = 0; si < static_cast<int32_t>(seqs.size()); ++si) {
    const AttentionSeq& s = seqs[static_cast<size_t>(si)];
    int32_t r0 = s.first_row;
    int64_t cost = 0;
    for (int32_t r = s.first_row; r < s.first_row + s.num_rows; ++r) {
      cost += keys(r);
      if (cost >= target || r + 1 - r0 >= max_rows || r + 1 == s.first_row + s.num_rows) {
        for (int32_t h = 0; h < num_kv_heads; ++h) tasks.push_back({si, h, r0, r + 1, cost});
        r0 = r + 1;
        cost = 0;
      }
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) { return a.cost > b.cost; });
}

// The kernels chosen for this call: the widest the CPU runs and head_dim allows.
struct Kernels {
  enum class Isa { Scalar, Avx2, Avx512 } isa = Isa::Scalar;

  static Kernels choose(int32_t hd) {
    Kernels k;
    const SimdLevel level = simd_level();
    if (level >= SimdLevel::Avx512 && hd % 16 == 0 && avx512_attention_built())
      k.isa = Isa::Avx512;
    else if (level >= SimdLevel::Avx2 && hd % 8 == 0 && avx2_attention_built())
      k.isa = Isa::Avx2;
    return k;
  }
  // Query heads of one GQA group advanced by one step over a tile (the AVX-512 kernel shares
  // each key and value load among up to 3; 4 go as 2 + 2).
  static constexpr int32_t kMaxHeads = 3;
  int32_t heads_per_step(int32_t remaining) const {
    if (isa != Isa::Avx512) return 1;
    return remaining == 4 ? 2 : std::min(remaining, kMaxHeads);
  }
  void step(const float* const* q, int32_t num_heads, const KvTile& tile, int32_t n, int32_t hd,
            const AttentionScores& scores, OnlineSoftmax* const* st) const {
    if (isa == Isa::Avx512) return avx512_attend_tile_heads(q, num_heads, tile, n, hd, scores, st);
    for (int32_t i = 0; i < num_heads; ++i) {
      if (isa == Isa::Avx2)
        avx2_attend_tile(q[i], tile, n, hd, scores, *st[i]);
      else
        attend_tile(q[i], tile, n, hd, scores, *st[i]);
    }
  }
  void finish(const OnlineSoftmax& st, int32_t hd, float* out) const {
    if (isa == Isa::Avx512) return avx512_finish(st, hd, out);
    if (isa == Isa::Avx2) return avx2_finish(st, hd, out);
    const float inv = 1.0f / st.sum;
    for (int32_t i = 0; i < hd; ++i) out[i] = st.acc[i] * inv;
  }
  // One cache row of hd values of `type` as F32 into dst.
  void convert(GgmlType type, const std::byte* src, float* dst, int32_t hd) const {
    if (isa == Isa::Avx512 && type == GgmlType::F16)
      avx512_f16_to_f32(src, dst, hd);
    else if (isa == Isa::Avx2 && type == GgmlType::F16)
      avx2_f16_to_f32(src, dst, hd);
    else
      dequantize_row(type, src, dst, hd);
  }
};

// Points `tile` at the K/V rows of positions [t0, t0 + count) for the head at byte `head_at` of
// each token (in place for F32, else converted into the scratch); rows past `count` read zeros.
// Position p is slot p % block_size of block table[p / block_size].
void load_tile(const KvLayerView& kv, std::span<const int32_t> table, size_t head_at, int64_t t0,
               int32_t count, const Kernels& kern, Scratch& s, KvTile& tile) {
  const int32_t hd = kv.head_dim;
  const size_t token_bytes = kv.token_bytes();
  const bool in_place = kv.type == GgmlType::F32;
  for (int32_t t = 0; t < kAttentionTile; ++t) {
    if (t >= count) {
      tile.k[t] = tile.v[t] = s.zeros.data();
      continue;
    }
    const int64_t p = t0 + t;
    const int32_t block = table[static_cast<size_t>(p / kv.block_size)];
    assert(block >= 0 && block < kv.num_blocks);
    const size_t at = (static_cast<size_t>(block) * static_cast<size_t>(kv.block_size) +
                       static_cast<size_t>(p % kv.block_size)) *
                          token_bytes +
                      head_at;
    if (in_place) {
      tile.k[t] = reinterpret_cast<const float*>(kv.k + at);
      tile.v[t] = reinterpret_cast<const float*>(kv.v + at);
    } else {
      float* kt = s.k.data() + static_cast<size_t>(t) * static_cast<size_t>(hd);
      float* vt = s.v.data() + static_cast<size_t>(t) * static_cast<size_t>(hd);
      kern.convert(kv.type, kv.k + at, kt, hd);
      kern.convert(kv.type, kv.v + at, vt, hd);
      tile.k[t] = kt;
      tile.v[t] = vt;
    }
  }
}

void run_task(const Task& task, std::span<const float> q, std::span<const int32_t> positions,
              int32_t num_heads, const KvLayerView& kv, std::span<const AttentionSeq> seqs,
              AttentionScores scores, std::span<float> out, const Kernels& kern) {
  const int32_t hd = kv.head_dim;
  const int32_t group = num_heads / kv.num_kv_heads;
  const int32_t rows = task.r1 - task.r0;
  const std::span<const int32_t> table = seqs[static_cast<size_t>(task.seq)].block_table;
  const size_t head_at = static_cast<size_t>(task.kvh) * row_bytes(kv.type, hd);
  const bool in_place = kv.type == GgmlType::F32;

  Scratch& s = scratch();
  const auto n_states = static_cast<size_t>(rows) * static_cast<size_t>(group);
  s.acc.assign(n_states * static_cast<size_t>(hd), 0.0f);
  s.states.resize(n_states);
  for (size_t i = 0; i < n_states; ++i)
    s.states[i] = {-INFINITY, 0.0f, s.acc.data() + i * static_cast<size_t>(hd)};
  s.zeros.assign(static_cast<size_t>(hd), 0.0f);
  if (!in_place) {
    s.k.resize(static_cast<size_t>(kAttentionTile) * static_cast<size_t>(hd));
    s.v.resize(s.k.size());
  }

  int32_t max_pos = 0, min_pos = positions[static_cast<size_t>(task.r0)];
  for (int32_t r = task.r0; r < task.r1; ++r) {
    max_pos = std::max(max_pos, positions[static_cast<size_t>(r)]);
    min_pos = std::min(min_pos, positions[static_cast<size_t>(r)]);
  }
  const int64_t ctx = int64_t{max_pos} + 1;
  assert(ctx <= static_cast<int64_t>(table.size()) * kv.block_size);

  KvTile tile, shifted;
  // Tiles start at multiples of kAttentionTile whatever the window, so that a row's tiles are
  // the same in every call; the keys of a tile before a row's window are skipped for that row.
  for (int64_t t0 = kv.first_visible(min_pos) / kAttentionTile * kAttentionTile; t0 < ctx;
       t0 += kAttentionTile) {
    const auto count = static_cast<int32_t>(std::min<int64_t>(kAttentionTile, ctx - t0));
    load_tile(kv, table, head_at, t0, count, kern, s, tile);
    // Every row that sees part of the tile, every query head of the group.
    for (int32_t r = task.r0; r < task.r1; ++r) {
      const int32_t pos = positions[static_cast<size_t>(r)];
      const int64_t skip = std::max<int64_t>(0, kv.first_visible(pos) - t0);
      const int64_t n = std::min<int64_t>(count, int64_t{pos} + 1 - t0) - skip;
      if (n <= 0) continue;
      const KvTile* seen = &tile;
      if (skip > 0) {  // the row's window starts inside the tile: its keys from `skip` on
        for (int32_t t = 0; t < kAttentionTile; ++t) {
          const bool in = t + skip < kAttentionTile;
          shifted.k[t] = in ? tile.k[t + skip] : s.zeros.data();
          shifted.v[t] = in ? tile.v[t + skip] : s.zeros.data();
        }
        seen = &shifted;
      }
      for (int32_t g = 0; g < group;) {
        const int32_t count = kern.heads_per_step(group - g);
        const float* qs[Kernels::kMaxHeads];
        OnlineSoftmax* states[Kernels::kMaxHeads];
        for (int32_t i = 0; i < count; ++i) {
          const int32_t h = task.kvh * group + g + i;
          qs[i] =
              q.data() + (static_cast<size_t>(r) * static_cast<size_t>(num_heads) + static_cast<size_t>(h)) *
                             static_cast<size_t>(hd);
          states[i] = &s.states[static_cast<size_t>(r - task.r0) * static_cast<size_t>(group) +
                                static_cast<size_t>(g + i)];
        }
        kern.step(qs, count, *seen, static_cast<int32_t>(n), hd, scores, states);
        g += count;
      }
    }
  }
  for (int32_t r = task.r0; r < task.r1; ++r)
    for (int32_t g = 0; g < group; ++g) {
      const int32_t h = task.kvh * group + g;
      float* oh =
          out.data() + (static_cast<size_t>(r) * static_cast<size_t>(num_heads) + static_cast<size_t>(h)) *
                           static_cast<size_t>(hd);
      kern.finish(
          s.states[static_cast<size_t>(r - task.r0) * static_cast<size_t>(group) + static_cast<size_t>(g)],
          hd, oh);
    }
}

}  // namespace

void attend_tile(const float* q, const KvTile& tile, int32_t n, int32_t hd, const AttentionScores& scores,
                 OnlineSoftmax& state) {
  float score[kAttentionTile];
  float tile_max = -INFINITY;
  for (int32_t t = 0; t < n; ++t) {
    float dot = 0;
    for (int32_t i = 0; i < hd; ++i) dot += q[i] * tile.k[t][i];
    score[t] = scores.of(dot);
    tile_max = std::max(tile_max, score[t]);
  }
  // A new max rescales what was summed so far by e^(old - new).
  float c = 1.0f;
  const bool rescale = tile_max > state.max;
  if (rescale) {
    c = state.max == -INFINITY ? 0.0f : std::exp(state.max - tile_max);
    state.max = tile_max;
  }
  float sum = 0;
  for (int32_t t = 0; t < n; ++t) sum += (score[t] = std::exp(score[t] - state.max));
  state.sum = state.sum * c + sum;
  if (rescale)
    for (int32_t i = 0; i < hd; ++i) state.acc[i] *= c;
  for (int32_t t = 0; t < n; ++t)
    for (int32_t i = 0; i < hd; ++i) state.acc[i] += score[t] * tile.v[t][i];
}

void paged_attention(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                     const KvLayerView& kv, std::span<const int32_t> block_table, AttentionScores scores,
                     std::span<float> out, ThreadPool& pool) {
  const AttentionSeq seq{block_table, 0, static_cast<int32_t>(positions.size())};
  paged_attention_batch(q, positions, num_heads, kv, std::span(&seq, 1), scores, out, pool);
}

void paged_attention_batch(std::span<const float> q, std::span<const int32_t> positions, int32_t num_heads,
                           const KvLayerView& kv, std::span<const AttentionSeq> seqs, AttentionScores scores,
                           std::span<float> out, ThreadPool& pool) {
  const int32_t hd = kv.head_dim;
  assert(num_heads % kv.num_kv_heads == 0);
  assert(q.size() == positions.size() * static_cast<size_t>(num_heads) * static_cast<size_t>(hd) &&
         out.size() == q.size());
  if (positions.empty() || seqs.empty()) return;
  const int32_t group = num_heads / kv.num_kv_heads;
  const Kernels kern = Kernels::choose(hd);

  // The caller's task list (the workers see it through this reference, not their own).
  thread_local std::vector<Task> plan;
  std::vector<Task>& tasks = plan;
  plan_tasks(positions, seqs, kv, pool.num_threads(),
             std::max<int64_t>(1, kTaskAccFloats / (int64_t{group} * hd)), tasks);
  pool.run(static_cast<int64_t>(tasks.size()), [&](int64_t i) {
    run_task(tasks[static_cast<size_t>(i)], q, positions, num_heads, kv, seqs, scores, out, kern);
  });
}

}  // namespace kernels
