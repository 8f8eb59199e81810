// BlockPool: exact block ids, LRU free-list (eviction) order, reference counts, and the
// prefix-cache table with verification of tokens and parent prefix.
#include "engine/core/block_pool.h"

#include <catch2/catch.hpp>
#include <vector>

using engine::BlockId;
using engine::BlockPool;
using engine::TokenId;

namespace {

std::vector<int32_t> ids(const std::vector<BlockId>& blocks) {
  std::vector<int32_t> out;
  for (auto b : blocks) out.push_back(b.value);
  return out;
}

}  // namespace

TEST_CASE("BlockPool hands out blocks in id order and refuses when empty", "[engine]") {
  BlockPool pool(4, 2);
  CHECK(pool.num_free() == 4);
  for (int32_t i = 0; i < 4; ++i) {
    auto b = pool.allocate();
    REQUIRE(b);
    CHECK(b->value == i);
    CHECK(pool.ref_count(*b) == 1);
  }
  CHECK_FALSE(pool.allocate());
  CHECK(pool.num_used() == 4);
}

TEST_CASE("BlockPool free list is least-recently-freed first", "[engine]") {
  BlockPool pool(4, 2);
  for (int i = 0; i < 4; ++i) pool.allocate();
  pool.release(BlockId{2});
  pool.release(BlockId{0});
  pool.release(BlockId{3});
  CHECK(ids(pool.free_list()) == std::vector<int32_t>{2, 0, 3});
  CHECK(pool.allocate()->value == 2);
  CHECK(ids(pool.free_list()) == std::vector<int32_t>{0, 3});
}

TEST_CASE("BlockPool reference counts: shared blocks free only at zero", "[engine]") {
  BlockPool pool(2, 2);
  const BlockId b = *pool.allocate();
  pool.acquire(b);
  CHECK(pool.ref_count(b) == 2);
  pool.release(b);
  CHECK(pool.num_free() == 1);  // still referenced once
  pool.release(b);
  CHECK(pool.ref_count(b) == 0);
  CHECK(pool.num_free() == 2);
}

TEST_CASE("BlockPool keeps freed cached content until evicted, in LRU order", "[engine]") {
  BlockPool pool(3, 2);
  const std::vector<TokenId> t1{1, 2}, t2{3, 4};
  const BlockId a = *pool.allocate(), b = *pool.allocate();
  const auto pa = pool.register_block(a, 111, 0, t1);
  const auto pb = pool.register_block(b, 222, pa, t2);
  CHECK(pa != 0);
  CHECK(pb != pa);
  pool.release(b);  // b freed before a: b is evicted first
  pool.release(a);
  CHECK(ids(pool.free_list()) == std::vector<int32_t>{2, 1, 0});

  // Still findable while free; a hit takes the block back off the free list.
  REQUIRE(pool.find(111, 0, t1) == a);
  REQUIRE(pool.find(222, pa, t2) == b);
  pool.acquire(a);
  CHECK(ids(pool.free_list()) == std::vector<int32_t>{2, 1});
  pool.release(a);

  CHECK(pool.allocate()->value == 2);  // the never-used block first: nothing evicted
  CHECK(pool.num_evictions() == 0);
  CHECK(pool.allocate()->value == 1);  // evicts b's content
  CHECK(pool.num_evictions() == 1);
  CHECK_FALSE(pool.find(222, pa, t2));
  CHECK(pool.find(111, 0, t1) == a);
}

TEST_CASE("BlockPool verification: a hash match with other tokens or parent is a miss", "[engine]") {
  BlockPool pool(2, 2);
  const std::vector<TokenId> t{5, 6};
  const BlockId a = *pool.allocate();
  const auto pa = pool.register_block(a, 42, 0, t);
  CHECK(pool.find(42, 0, t) == a);
  CHECK_FALSE(pool.find(42, 0, std::vector<TokenId>{5, 7}));  // forged collision: same hash, other tokens
  CHECK_FALSE(pool.find(42, pa, t));                          // same tokens after another prefix
  CHECK_FALSE(pool.find(43, 0, t));
}

TEST_CASE("BlockPool registers identical content once", "[engine]") {
  BlockPool pool(2, 2);
  const std::vector<TokenId> t{7, 8};
  const BlockId a = *pool.allocate(), b = *pool.allocate();
  const auto pa = pool.register_block(a, 9, 0, t);
  CHECK(pool.register_block(b, 9, 0, t) == pa);
  CHECK(pool.is_cached(a));
  CHECK_FALSE(pool.is_cached(b));
  CHECK(pool.prefix_id(a) == pa);
}
