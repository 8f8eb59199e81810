// Batched paged attention read in place (kernels::paged_attention_batch) and the slot-mapped K/V
// store (kernels::store_kv): against the reference loops for F32 / F16 / Q8_0 caches, GQA ratios
// 1, 4 and 7, head sizes 64 and 128 (and 40 / 36: the AVX2 path with a 64 + 8-wide tail, and the
// portable path), block sizes that do not divide the context, several sequences per call mixing
// prefill chunks and decode rows; and bit-for-bit batch invariance (a row's result does not
// depend on the other rows or sequences of the call, nor on the thread count).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/reference_ops.h"
#include "kernels/quant/quantize.h"
#include "kernels/thread_pool.h"
#include "tests/kernels/random_weights.h"

using kernels::GgmlType;

namespace {

// One layer of a paged cache, filled through store_kv.
struct Layer {
  GgmlType type;
  int32_t num_blocks, block_size, kv_heads, head_dim;
  std::vector<std::byte> k, v;

  Layer(GgmlType t, int32_t blocks, int32_t bs, int32_t heads, int32_t hd)
      : type(t), num_blocks(blocks), block_size(bs), kv_heads(heads), head_dim(hd) {
    k.resize(static_cast<size_t>(blocks * bs) * view().token_bytes());
    v.resize(k.size());
  }
  kernels::KvLayerMutView mut() {
    return {k.data(), v.data(), type, num_blocks, block_size, kv_heads, head_dim};
  }
  kernels::KvLayerView view() const {
    return {k.data(), v.data(), type, num_blocks, block_size, kv_heads, head_dim};
  }
};

// A sequence: its blocks (scattered) and its context length after the step.
struct Seq {
  std::vector<int32_t> blocks;
  int32_t context;   // positions [0, context) are in the cache
  int32_t num_rows;  // query rows this step: the last num_rows positions
};

// Fills positions [0, context) of every sequence with random K/V through store_kv (one call).
void fill(Layer& layer, const std::vector<Seq>& seqs, std::mt19937& rng, float kscale = 1.0f) {
  std::vector<int32_t> slots;
  for (const Seq& s : seqs)
    for (int32_t p = 0; p < s.context; ++p)
      slots.push_back(s.blocks[static_cast<size_t>(p / layer.block_size)] * layer.block_size +
                      p % layer.block_size);
  const auto width = static_cast<size_t>(layer.kv_heads * layer.head_dim);
  const auto k = kernels::test::random_floats(slots.size() * width, rng, kscale);
  const auto v = kernels::test::random_floats(slots.size() * width, rng);
  kernels::store_kv(layer.mut(), k, v, slots);
}

// Block ids for `n` sequences of up to `max_ctx` positions, interleaved and shuffled in one pool.
std::vector<std::vector<int32_t>> scattered_blocks(size_t n, int32_t blocks_each, std::mt19937& rng) {
  std::vector<int32_t> ids(n * static_cast<size_t>(blocks_each));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<std::vector<int32_t>> out(n);
  for (size_t i = 0; i < ids.size(); ++i) out[i % n].push_back(ids[i]);
  return out;
}

struct Call {
  std::vector<float> q;
  std::vector<int32_t> positions;
  std::vector<kernels::AttentionSeq> seqs;
};

Call make_call(const std::vector<Seq>& seqs, int32_t heads, int32_t hd, std::mt19937& rng,
               float qscale = 1.0f) {
  Call c;
  for (const Seq& s : seqs) {
    c.seqs.push_back({s.blocks, static_cast<int32_t>(c.positions.size()), s.num_rows});
    for (int32_t p = s.context - s.num_rows; p < s.context; ++p) c.positions.push_back(p);
  }
  c.q = kernels::test::random_floats(c.positions.size() * static_cast<size_t>(heads * hd), rng, qscale);
  return c;
}

// The reference, one sequence at a time.
std::vector<float> reference(const Call& c, int32_t heads, const kernels::KvLayerView& kv, float scale) {
  std::vector<float> out(c.q.size());
  const auto w = static_cast<size_t>(heads * kv.head_dim);
  for (const auto& s : c.seqs) {
    const auto r0 = static_cast<size_t>(s.first_row), n = static_cast<size_t>(s.num_rows);
    kernels::reference::paged_attention(std::span(c.q).subspan(r0 * w, n * w),
                                        std::span(c.positions).subspan(r0, n), heads, kv, s.block_table,
                                        scale, std::span(out).subspan(r0 * w, n * w));
  }
  return out;
}

}  // namespace

TEST_CASE("Batched paged attention matches the reference loops", "[kernels]") {
  std::mt19937 rng(15);
  struct Layout {
    int32_t heads, kv_heads, head_dim;
  };
  const Layout layouts[] = {{4, 4, 64},  {8, 2, 64}, {14, 2, 64}, {7, 1, 128},
                            {4, 1, 128}, {6, 2, 40}, {3, 3, 36},  {14, 2, 128}};
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0}) {
    for (const Layout& lay : layouts) {
      if (type == GgmlType::Q8_0 && lay.head_dim % 32 != 0) continue;
      for (int32_t block_size : {5, 16}) {
        // A decode row deep in its context, a prefill chunk continuing a cached prefix, a fresh
        // prefill, a one-token sequence and a decode row right at a tile edge.
        const std::vector<std::pair<int32_t, int32_t>> shapes = {
            {77, 1}, {41, 12}, {23, 23}, {1, 1}, {33, 1}};
        const int32_t blocks_each = (77 + block_size - 1) / block_size;
        const auto blocks = scattered_blocks(shapes.size(), blocks_each, rng);
        std::vector<Seq> seqs;
        for (size_t i = 0; i < shapes.size(); ++i)
          seqs.push_back({blocks[i], shapes[i].first, shapes[i].second});
        Layer layer(type, static_cast<int32_t>(shapes.size()) * blocks_each, block_size, lay.kv_heads,
                    lay.head_dim);
        fill(layer, seqs, rng);
        const Call c = make_call(seqs, lay.heads, lay.head_dim, rng);
        const float scale = 1.0f / std::sqrt(static_cast<float>(lay.head_dim));
        const auto want = reference(c, lay.heads, layer.view(), scale);
        for (int threads : {1, 2, 3}) {
          kernels::ThreadPool pool(threads);
          std::vector<float> got(c.q.size());
          kernels::paged_attention_batch(c.q, c.positions, lay.heads, layer.view(), c.seqs, scale, got, pool);
          INFO(kernels::traits(type).name << " heads " << lay.heads << "/" << lay.kv_heads << " dim "
                                          << lay.head_dim << " block " << block_size << " threads "
                                          << threads);
          for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(2e-5));
        }
      }
    }
  }
}

TEST_CASE("Online softmax stays exact when the running max jumps between tiles", "[kernels]") {
  // Scores of tens to hundreds (large q and k): every later tile may raise the max, and the early
  // terms must fade by e^(old - new) without overflow or loss.
  std::mt19937 rng(3);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16}) {
    const int32_t block_size = 7, heads = 4, kv_heads = 1, hd = 64;
    std::vector<Seq> seqs = {{{}, 300, 3}};
    for (int32_t b = 0; b < 43; ++b) seqs[0].blocks.push_back(42 - b);
    Layer layer(type, 43, block_size, kv_heads, hd);
    fill(layer, seqs, rng, 4.0f);
    const Call c = make_call(seqs, heads, hd, rng, 4.0f);
    const auto want = reference(c, heads, layer.view(), 0.125f);
    kernels::ThreadPool pool(2);
    std::vector<float> got(c.q.size());
    kernels::paged_attention_batch(c.q, c.positions, heads, layer.view(), c.seqs, 0.125f, got, pool);
    for (size_t i = 0; i < got.size(); ++i) {
      REQUIRE(std::isfinite(got[i]));
      REQUIRE(got[i] == Approx(want[i]).margin(1e-4));
    }
  }
}

TEST_CASE("A row's attention does not depend on the rest of the batch or the thread count", "[kernels]") {
  std::mt19937 rng(21);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0}) {
    for (int32_t hd : {64, 40, 36}) {  // 40: the AVX2 kernel at the AVX-512 level; 36: the portable loop
      if (type == GgmlType::Q8_0 && hd % 32 != 0) continue;
      const int32_t heads = 14, kv_heads = 2, block_size = 16;
      const auto blocks = scattered_blocks(3, 5, rng);
      const std::vector<Seq> seqs = {{blocks[0], 70, 30}, {blocks[1], 50, 1}, {blocks[2], 9, 9}};
      Layer storage(type, 15, block_size, kv_heads, hd);
      fill(storage, seqs, rng);
      const Call all = make_call(seqs, heads, hd, rng);
      const auto w = static_cast<size_t>(heads * hd);
      kernels::ThreadPool pool2(2), pool1(1);
      // Full causal attention, and a sliding window that starts inside a tile for most rows.
      for (int32_t window : {0, 21}) {
        struct {
          Layer& layer;
          int32_t window;
          kernels::KvLayerView view() const {
            kernels::KvLayerView v = layer.view();
            v.window = window;
            return v;
          }
        } layer{storage, window};
        std::vector<float> batched(all.q.size());
        kernels::paged_attention_batch(all.q, all.positions, heads, layer.view(), all.seqs, 0.1f, batched,
                                       pool2);
        // Every row alone (one row, one sequence, one thread) gives the same bits.
        for (size_t r = 0; r < all.positions.size(); ++r) {
          const auto seq = std::find_if(all.seqs.begin(), all.seqs.end(), [&](const auto& s) {
            return r >= static_cast<size_t>(s.first_row) && r < static_cast<size_t>(s.first_row + s.num_rows);
          });
          const kernels::AttentionSeq one{seq->block_table, 0, 1};
          std::vector<float> alone(w);
          kernels::paged_attention_batch(std::span(all.q).subspan(r * w, w),
                                         std::span(all.positions).subspan(r, 1), heads, layer.view(),
                                         std::span(&one, 1), 0.1f, alone, pool1);
          INFO(kernels::traits(type).name << " dim " << hd << " window " << window << " row " << r);
          REQUIRE(
              std::equal(alone.begin(), alone.end(), batched.begin() + static_cast<std::ptrdiff_t>(r * w)));
        }
        // The single-sequence entry point too.
        std::vector<float> first(static_cast<size_t>(all.seqs[0].num_rows) * w);
        kernels::paged_attention(std::span(all.q).first(first.size()),
                                 std::span(all.positions).first(static_cast<size_t>(all.seqs[0].num_rows)),
                                 heads, layer.view(), all.seqs[0].block_table, 0.1f, first, pool1);
        REQUIRE(std::equal(first.begin(), first.end(), batched.begin()));
      }
    }
  }
}

TEST_CASE("store_kv writes each row at its slot as quantize_row encodes it", "[kernels]") {
  std::mt19937 rng(5);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0}) {
    const int32_t kv_heads = 2, hd = 64, block_size = 3, blocks = 6;
    Layer layer(type, blocks, block_size, kv_heads, hd);
    const std::vector<int32_t> slots = {17, 0, 4, 9, 16};
    const auto width = static_cast<size_t>(kv_heads * hd);
    const auto k = kernels::test::random_floats(slots.size() * width, rng);
    const auto v = kernels::test::random_floats(slots.size() * width, rng);
    kernels::store_kv(layer.mut(), k, v, slots);
    const size_t tb = layer.view().token_bytes(), hb = kernels::row_bytes(type, hd);
    std::vector<std::byte> want(hb);
    for (size_t i = 0; i < slots.size(); ++i)
      for (int32_t h = 0; h < kv_heads; ++h) {
        const size_t at = static_cast<size_t>(slots[i]) * tb + static_cast<size_t>(h) * hb;
        const float* src = k.data() + i * width + static_cast<size_t>(h * hd);
        if (type == GgmlType::F32)
          std::memcpy(want.data(), src, hb);
        else
          kernels::quantize_row(type, src, want.data(), hd);
        INFO(kernels::traits(type).name << " slot " << slots[i] << " head " << h);
        REQUIRE(std::memcmp(layer.k.data() + at, want.data(), hb) == 0);
        const float* vsrc = v.data() + i * width + static_cast<size_t>(h * hd);
        if (type == GgmlType::F32)
          std::memcpy(want.data(), vsrc, hb);
        else
          kernels::quantize_row(type, vsrc, want.data(), hd);
        REQUIRE(std::memcmp(layer.v.data() + at, want.data(), hb) == 0);
      }
    // Slots not named stay untouched (zero).
    const std::vector<std::byte> zero(tb);
    REQUIRE(std::memcmp(layer.k.data() + 1 * tb, zero.data(), tb) == 0);
  }
}
