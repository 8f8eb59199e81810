// KvCacheManager: block tables, prefix-cache hits (capped at num_tokens - 1), registration of
// generated tokens' blocks, freeing tail-first, and all-or-nothing allocation.
#include "engine/core/kv_cache_manager.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

using namespace engine;

namespace {

std::vector<int32_t> table(const Sequence& s) {
  std::vector<int32_t> out;
  for (auto b : s.kv.block_table) out.push_back(b.value);
  return out;
}

std::vector<TokenId> range(TokenId from, int n) {
  std::vector<TokenId> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), from);
  return v;
}

Sequence make_seq(uint64_t id, std::vector<TokenId> tokens) {
  return Sequence(SeqId{id}, std::move(tokens), {}, {});
}

// Runs a whole prompt through: allocate (with any hit), mark computed, cache full blocks.
void compute_all(KvCacheManager& kv, Sequence& s) {
  const auto hit = kv.find_cached_prefix(s);
  REQUIRE(kv.allocate_slots(s, s.num_tokens() - hit.num_tokens, &hit));
  s.num_computed_tokens = s.num_tokens();
  kv.cache_full_blocks(s);
}

}  // namespace

TEST_CASE("KvCacheManager allocates blocks on demand with exact ids", "[engine]") {
  BlockPool pool(8, 4);
  KvCacheManager kv(pool, true);
  auto s = make_seq(1, range(100, 10));
  REQUIRE(kv.allocate_slots(s, 6) == 2);
  CHECK(table(s) == std::vector<int32_t>{0, 1});
  s.num_computed_tokens = 6;
  REQUIRE(kv.allocate_slots(s, 2) == 0);  // positions 6, 7 fit in block 1
  s.num_computed_tokens = 8;
  REQUIRE(kv.allocate_slots(s, 2) == 1);
  CHECK(table(s) == std::vector<int32_t>{0, 1, 2});
  CHECK(pool.num_used() == 3);
}

TEST_CASE("KvCacheManager allocation is all-or-nothing", "[engine]") {
  BlockPool pool(3, 4);
  KvCacheManager kv(pool, true);
  auto s = make_seq(1, range(0, 20));
  CHECK_FALSE(kv.allocate_slots(s, 13));  // needs 4 blocks
  CHECK(s.kv.block_table.empty());
  CHECK(pool.num_free() == 3);
  CHECK(kv.allocate_slots(s, 12) == 3);
}

TEST_CASE("KvCacheManager prefix hit reuses full blocks and caps at num_tokens - 1", "[engine]") {
  BlockPool pool(16, 4);
  KvCacheManager kv(pool, true);
  auto a = make_seq(1, range(10, 10));  // blocks [10..13] [14..17] + partial [18, 19]
  compute_all(kv, a);
  CHECK(table(a) == std::vector<int32_t>{0, 1, 2});
  kv.free(a);
  // Freed tail-first: the partial tail block is evicted first, the head block last.
  auto fl = pool.free_list();
  CHECK(std::vector<int32_t>{fl[fl.size() - 3].value, fl[fl.size() - 2].value, fl.back().value} ==
        std::vector<int32_t>{2, 1, 0});

  auto b = make_seq(2, range(10, 12));  // shares the two full blocks, then differs
  const auto hit = kv.find_cached_prefix(b);
  CHECK(hit.num_tokens == 8);
  REQUIRE(hit.blocks.size() == 2);
  CHECK(hit.blocks[0].value == 0);
  CHECK(hit.blocks[1].value == 1);

  auto exact = make_seq(3, range(10, 8));  // exactly the two cached blocks: the cap leaves one token
  CHECK(kv.find_cached_prefix(exact).num_tokens == 4);

  auto other = make_seq(4, {10, 11, 12, 99, 14, 15, 16, 17});  // differs inside the first block
  CHECK(kv.find_cached_prefix(other).num_tokens == 0);

  REQUIRE(kv.allocate_slots(b, 4, &hit) == 1);
  CHECK(table(b)[0] == 0);
  CHECK(table(b)[1] == 1);
  CHECK(pool.ref_count(BlockId{0}) == 1);
}

TEST_CASE("KvCacheManager caches generated tokens' blocks for an extending prompt", "[engine]") {
  BlockPool pool(16, 4);
  KvCacheManager kv(pool, true);
  auto a = make_seq(1, range(0, 6));
  compute_all(kv, a);
  for (TokenId t : {50, 51, 52}) {  // decode: the sampled token is computed in the next step
    a.append_token(t);
    REQUIRE(kv.allocate_slots(a, 1));
    a.num_computed_tokens += 1;
    kv.cache_full_blocks(a);
  }
  CHECK(a.kv.num_hashed_blocks == 2);  // tokens 0..7 (prompt + two generated) are cached
  kv.free(a);
  std::vector<TokenId> next{0, 1, 2, 3, 4, 5, 50, 51, 52, 60, 61};  // previous prompt + answer + more
  auto b = make_seq(2, next);
  CHECK(kv.find_cached_prefix(b).num_tokens == 8);
}

TEST_CASE("KvCacheManager with prefix caching off never hits", "[engine]") {
  BlockPool pool(8, 4);
  KvCacheManager kv(pool, false);
  auto a = make_seq(1, range(0, 9));
  compute_all(kv, a);
  kv.free(a);
  auto b = make_seq(2, range(0, 9));
  CHECK(kv.find_cached_prefix(b).num_tokens == 0);
  CHECK_FALSE(pool.is_cached(BlockId{0}));
}

TEST_CASE("KvCacheManager counts cached free blocks against the free pool on a hit", "[engine]") {
  BlockPool pool(3, 4);
  KvCacheManager kv(pool, true);
  auto a = make_seq(1, range(0, 9));
  compute_all(kv, a);  // 3 blocks, 2 cached
  kv.free(a);
  auto b = make_seq(2, range(0, 12));
  const auto hit = kv.find_cached_prefix(b);
  REQUIRE(hit.num_tokens == 8);
  CHECK_FALSE(kv.allocate_slots(b, 5, &hit));  // 2 reused + 2 new > 3 free
  CHECK(b.kv.block_table.empty());
  CHECK(pool.ref_count(BlockId{0}) == 0);
  CHECK(kv.allocate_slots(b, 4, &hit) == 1);
  CHECK(pool.num_free() == 0);
}

TEST_CASE("KvCacheManager keeps only the window's blocks in the window pool", "[engine]") {
  // Blocks of 4, a window of 6: the token at position p sees p-5..p.
  BlockPool pool(16, 4), window_pool(6, 4);
  KvCacheManager kv(pool, true, &window_pool, 6);
  CHECK(kv.first_window_block(5) == 0);
  CHECK(kv.first_window_block(8) == 0);  // sees 3..8
  CHECK(kv.first_window_block(9) == 1);  // sees 4..9
  auto s = make_seq(1, range(100, 30));
  const auto hit = kv.find_cached_prefix(s);
  REQUIRE(kv.allocate_slots(s, 20, &hit) == 5);  // positions 0..19: every block in both pools
  CHECK(window_pool.num_used() == 5);
  s.num_computed_tokens = 20;
  kv.cache_full_blocks(s);
  kv.slide_window(s);  // the token at 20 sees 15..20: blocks 3 and 4 stay
  CHECK(s.kv.window_begin == 3);
  CHECK(window_pool.num_used() == 2);
  CHECK(pool.num_used() == 5);
  // A chunk needs one new block in each pool; all-or-nothing across the two.
  REQUIRE(kv.allocate_slots(s, 4) == 1);
  CHECK(window_pool.num_used() == 3);
  auto greedy = make_seq(2, range(500, 40));
  const auto none = kv.find_cached_prefix(greedy);
  CHECK_FALSE(kv.can_allocate(greedy, 16, &none));  // 4 window blocks, 3 free
  CHECK(kv.can_allocate(greedy, 12, &none));
  s.num_computed_tokens = 24;
  kv.cache_full_blocks(s);
  kv.slide_window(s);
  CHECK(s.kv.window_begin == 4);
  kv.free(s);
  CHECK(pool.num_used() == 0);
  CHECK(window_pool.num_used() == 0);

  SECTION("a hit is as long as the window blocks its next token needs are cached") {
    // The same 24 tokens and more: 6 blocks cached in the global pool; the token at 24 sees
    // 19..24, blocks 4 and 5, whose window blocks were the last released: cached still.
    auto again = make_seq(3, range(100, 30));
    const auto h = kv.find_cached_prefix(again);
    CHECK(h.num_tokens == 24);
    CHECK(h.window_begin == 4);
    CHECK(h.window_blocks.size() == 2);
    REQUIRE(kv.allocate_slots(again, 6, &h) == 2);
    CHECK(window_pool.num_used() == 4);  // 2 found, 2 new
    kv.free(again);
  }
  SECTION("a hit whose window blocks were evicted is shortened") {
    // Taking every window block evicts the cached ones; the global pool still has all six.
    auto other = make_seq(4, range(900, 30));
    const auto none2 = kv.find_cached_prefix(other);
    REQUIRE(kv.allocate_slots(other, 24, &none2) == 6);
    kv.free(other);  // its own blocks are cached now, the first ones evicted first
    auto again = make_seq(3, range(100, 30));
    const auto h = kv.find_cached_prefix(again);
    CHECK(h.num_tokens == 0);  // no block of the old window is left
    CHECK(h.window_blocks.empty());
  }
}
