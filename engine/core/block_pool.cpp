// The KV block pool: reference counts, an intrusive LRU free list, and the prefix-cache table.
#include "engine/core/block_pool.h"

#include <algorithm>
#include <cassert>

namespace engine {

BlockPool::BlockPool(int32_t num_blocks, int32_t block_size) : block_size_(block_size), blocks_(num_blocks) {
  for (int32_t i = 0; i < num_blocks; ++i) push_back(i);
}

size_t BlockPool::index(BlockId block) const {
  assert(block.value >= 0 && block.value < num_blocks());
  return static_cast<size_t>(block.value);
}

void BlockPool::unlink(int32_t i) {
  Block& b = blocks_[i];
  if (b.prev >= 0)
    blocks_[b.prev].next = b.next;
  else
    head_ = b.next;
  if (b.next >= 0)
    blocks_[b.next].prev = b.prev;
  else
    tail_ = b.prev;
  b.prev = b.next = -1;
  --num_free_;
}

void BlockPool::push_back(int32_t i) {
  Block& b = blocks_[i];
  b.prev = tail_;
  b.next = -1;
  if (tail_ >= 0)
    blocks_[tail_].next = i;
  else
    head_ = i;
  tail_ = i;
  ++num_free_;
}

void BlockPool::evict(int32_t i) {
  Block& b = blocks_[i];
  if (b.prefix_id == 0) return;
  auto [first, last] = cached_.equal_range(b.hash);
  for (auto it = first; it != last; ++it) {
    if (it->second == i) {
      cached_.erase(it);
      break;
    }
  }
  b.prefix_id = 0;
  b.parent = 0;
  b.tokens.clear();
  ++num_evictions_;
}

std::optional<BlockId> BlockPool::allocate() {
  if (head_ < 0) return std::nullopt;
  const int32_t i = head_;
  unlink(i);
  evict(i);
  blocks_[i].ref_count = 1;
  return BlockId{i};
}

void BlockPool::acquire(BlockId block) {
  Block& b = blocks_[index(block)];
  // Invariant: a block is on the free list exactly when its reference count is zero.
  if (b.ref_count == 0) unlink(block.value);
  ++b.ref_count;
}

void BlockPool::release(BlockId block) {
  Block& b = blocks_[index(block)];
  assert(b.ref_count > 0 && "reference counts never go negative");
  if (--b.ref_count == 0) push_back(block.value);
}

std::optional<BlockId> BlockPool::find(BlockHash hash, PrefixId parent,
                                       std::span<const TokenId> tokens) const {
  auto [first, last] = cached_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    const Block& b = blocks_[it->second];
    // Verification: same parent prefix and the same tokens, so a collision is only a miss.
    if (b.parent == parent && std::ranges::equal(b.tokens, tokens)) return BlockId{it->second};
  }
  return std::nullopt;
}

PrefixId BlockPool::register_block(BlockId block, BlockHash hash, PrefixId parent,
                                   std::span<const TokenId> tokens) {
  Block& b = blocks_[index(block)];
  assert(b.ref_count > 0 && static_cast<int32_t>(tokens.size()) == block_size_);
  if (b.prefix_id != 0) return b.prefix_id;  // already registered (e.g. it was a cache hit)
  if (auto existing = find(hash, parent, tokens)) return blocks_[existing->value].prefix_id;
  b.prefix_id = next_prefix_id_++;
  b.parent = parent;
  b.hash = hash;
  b.tokens.assign(tokens.begin(), tokens.end());
  cached_.emplace(hash, block.value);
  return b.prefix_id;
}

std::vector<BlockId> BlockPool::free_list() const {
  std::vector<BlockId> out;
  for (int32_t i = head_; i >= 0; i = blocks_[i].next) out.push_back(BlockId{i});
  return out;
}

}  // namespace engine
