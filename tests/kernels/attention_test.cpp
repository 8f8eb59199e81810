// Paged attention: a hand-computed two-position case, and the threaded kernel against the
// reference for F32 / F16 / Q8_0 caches, GQA and MQA, scattered block tables and query rows at
// different positions; sliding windows.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/reference_ops.h"
#include "kernels/quant/dot_activation.h"
#include "kernels/thread_pool.h"
#include "tests/kernels/random_weights.h"

using kernels::GgmlType;

namespace {

// A paged K/V store for tests: [num_blocks, block_size, kv_heads, head_dim] of `type` per K and V.
struct TestCache {
  GgmlType type;
  int32_t num_blocks, block_size, kv_heads, head_dim;
  std::vector<std::byte> k, v;

  TestCache(GgmlType t, int32_t blocks, int32_t bs, int32_t heads, int32_t hd)
      : type(t), num_blocks(blocks), block_size(bs), kv_heads(heads), head_dim(hd) {
    k.resize(static_cast<size_t>(blocks * bs) * token_bytes());
    v.resize(k.size());
  }
  size_t token_bytes() const { return kernels::row_bytes(type, int64_t{kv_heads} * head_dim); }
  // Stores one token's K and V ([kv_heads * head_dim] floats each), converted per head.
  void put(int32_t block, int32_t slot, const float* kv_k, const float* kv_v) {
    const size_t at = (static_cast<size_t>(block) * block_size + static_cast<size_t>(slot)) * token_bytes();
    const size_t head_bytes = kernels::row_bytes(type, head_dim);
    for (int32_t h = 0; h < kv_heads; ++h) {
      kernels::quantize_activation_row(type, kv_k + h * head_dim, k.data() + at + h * head_bytes, head_dim);
      kernels::quantize_activation_row(type, kv_v + h * head_dim, v.data() + at + h * head_bytes, head_dim);
    }
  }
  kernels::KvLayerView view() const {
    return {k.data(), v.data(), type, num_blocks, block_size, kv_heads, head_dim};
  }
};

}  // namespace

TEST_CASE("Attention over two positions weighs values by softmax(q·k * scale)", "[kernels]") {
  TestCache cache(GgmlType::F32, 2, 1, 1, 2);
  const float k0[] = {1, 0}, v0[] = {10, 0}, k1[] = {0, 1}, v1[] = {0, 10};
  const std::vector<int32_t> table = {1, 0};  // position 0 in block 1, position 1 in block 0
  cache.put(1, 0, k0, v0);
  cache.put(0, 0, k1, v1);
  // Row 0 at position 0 sees only v0; row 1 at position 1 scores k0 = 2*0.5, k1 = 0.
  const std::vector<float> q = {2, 0, 2, 0};
  const std::vector<int32_t> pos = {0, 1};
  std::vector<float> out(4);
  kernels::ThreadPool pool(2);
  kernels::paged_attention(q, pos, 1, cache.view(), table, 0.5f, out, pool);
  CHECK(out[0] == Approx(10));
  CHECK(out[1] == Approx(0).margin(1e-6));
  const double p0 = std::exp(1.0) / (std::exp(1.0) + 1.0);
  CHECK(out[2] == Approx(10 * p0));
  CHECK(out[3] == Approx(10 * (1 - p0)));
}

TEST_CASE("Paged attention matches the reference for every cache type and head layout", "[kernels]") {
  std::mt19937 rng(9);
  struct Layout {
    int32_t heads, kv_heads, head_dim;
  };
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0}) {
    // 96: the AVX-512 kernel's 64- and 16-column steps; 24: not a multiple of 16 (the AVX2 kernel
    // at the AVX-512 level), and not of Q8_0's 32.
    for (Layout layout : {Layout{4, 1, 64}, Layout{6, 2, 32}, Layout{2, 2, 128}, Layout{14, 2, 64},
                          Layout{4, 2, 96}, Layout{4, 2, 24}}) {
      if (type == GgmlType::Q8_0 && layout.head_dim % 32 != 0) continue;
      const int32_t block_size = 4, ctx = 23, num_blocks = 8;
      TestCache cache(type, num_blocks, block_size, layout.kv_heads, layout.head_dim);
      // Blocks in a scrambled order.
      std::vector<int32_t> table = {5, 2, 7, 0, 3, 6};
      const int32_t kv_dim = layout.kv_heads * layout.head_dim;
      for (int32_t p = 0; p < ctx; ++p) {
        const auto k = kernels::test::random_floats(static_cast<size_t>(kv_dim), rng);
        const auto v = kernels::test::random_floats(static_cast<size_t>(kv_dim), rng);
        cache.put(table[static_cast<size_t>(p / block_size)], p % block_size, k.data(), v.data());
      }
      // Query rows at the last 9 positions (a prefill chunk), and a single decode row.
      for (int32_t rows : {9, 1}) {
        std::vector<int32_t> pos(static_cast<size_t>(rows));
        std::iota(pos.begin(), pos.end(), ctx - rows);
        const auto q =
            kernels::test::random_floats(static_cast<size_t>(rows * layout.heads * layout.head_dim), rng);
        std::vector<float> got(q.size()), want(q.size());
        const float scale = 1.0f / std::sqrt(static_cast<float>(layout.head_dim));
        for (int threads : {1, 3}) {
          kernels::ThreadPool pool(threads);
          kernels::paged_attention(q, pos, layout.heads, cache.view(), table, scale, got, pool);
          kernels::reference::paged_attention(q, pos, layout.heads, cache.view(), table, scale, want);
          INFO(kernels::traits(type).name << " heads " << layout.heads << "/" << layout.kv_heads << " rows "
                                          << rows << " threads " << threads);
          for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-5));
        }
      }
    }
  }
}

TEST_CASE("Sliding-window attention sees the last `window` positions only; soft-capped scores", "[kernels]") {
  std::mt19937 rng(12);
  const int32_t block_size = 4, ctx = 53, num_blocks = 14, heads = 4, kv_heads = 2, hd = 32;
  std::vector<int32_t> table(num_blocks);
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0}) {
    TestCache cache(type, num_blocks, block_size, kv_heads, hd);
    std::vector<std::vector<float>> values;  // V of each position, before the cache's rounding
    for (int32_t p = 0; p < ctx; ++p) {
      const auto k = kernels::test::random_floats(static_cast<size_t>(kv_heads * hd), rng);
      values.push_back(kernels::test::random_floats(static_cast<size_t>(kv_heads * hd), rng));
      cache.put(table[static_cast<size_t>(p / block_size)], p % block_size, k.data(), values.back().data());
    }
    const int32_t rows = 20;
    std::vector<int32_t> pos(rows);
    std::iota(pos.begin(), pos.end(), ctx - rows);
    const auto q = kernels::test::random_floats(static_cast<size_t>(rows * heads * hd), rng);
    kernels::ThreadPool pool(2);
    std::vector<float> full(q.size());
    kernels::paged_attention(q, pos, heads, cache.view(), table, 0.2f, full, pool);
    for (int32_t window : {1, 5, 16, 17, 40, 60}) {
      kernels::KvLayerView view = cache.view();
      view.window = window;
      std::vector<float> got(q.size()), want(q.size());
      kernels::paged_attention(q, pos, heads, view, table, 0.2f, got, pool);
      kernels::reference::paged_attention(q, pos, heads, view, table, 0.2f, want);
      INFO(kernels::traits(type).name << " window " << window);
      for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-5));
      // Gemma 2's soft cap (scores of up to about 5 here, capped at 1.5: most are bent).
      std::vector<float> capped(q.size());
      kernels::paged_attention(q, pos, heads, view, table, {0.2f, 1.5f}, capped, pool);
      kernels::reference::paged_attention(q, pos, heads, view, table, {0.2f, 1.5f}, want);
      for (size_t i = 0; i < got.size(); ++i) REQUIRE(capped[i] == Approx(want[i]).margin(1e-5));
      CHECK((capped == got) == (window == 1));  // one visible key: softmax is 1 whatever the score
      // A window past the first position is full attention; a shorter one is not.
      CHECK((got == full) == (window >= ctx));
      if (window != 1) continue;
      // One position: the output is that position's value, whatever the scores.
      for (int32_t r = 0; r < rows; ++r)
        for (int32_t h = 0; h < heads; ++h) {
          const auto& stored = values[static_cast<size_t>(pos[static_cast<size_t>(r)])];
          for (int32_t i = 0; i < hd; ++i)
            CHECK(got[static_cast<size_t>((r * heads + h) * hd + i)] ==
                  Approx(stored[static_cast<size_t>((h / 2) * hd + i)])
                      .margin(type == GgmlType::F32 ? 1e-6 : 0.05));
        }
    }
  }
}
