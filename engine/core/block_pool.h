// Every KV block of the cache: its reference count, its cached content key, and one LRU free
// list that is also the eviction order. Knows nothing about sequences: the KvCacheManager asks
// it for blocks, and for cached blocks by content.
//
// Cached content: a full block is keyed by H(parent_hash, tokens) for lookup, and verified on
// a hit by its exact tokens and the prefix id of its parent (a unique number given to each
// registered block), so a hash collision can never return a block with other content.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/core/ids.h"
#include "engine/core/request.h"

namespace engine {

using BlockHash = uint64_t;

// Identifies an exact token prefix that ends at a cached block; 0 is the empty prefix.
using PrefixId = uint64_t;

class BlockPool {
 public:
  // A pool of `num_blocks` blocks of `block_size` tokens, all free, in id order.
  BlockPool(int32_t num_blocks, int32_t block_size);

  int32_t num_blocks() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t block_size() const { return block_size_; }
  // Blocks with no reference (empty or cached-but-evictable): what allocate() can hand out.
  int32_t num_free() const { return num_free_; }
  // Blocks referenced by at least one sequence.
  int32_t num_used() const { return num_blocks() - num_free_; }
  // Cached blocks evicted so far (their content dropped to reuse the block).
  int64_t num_evictions() const { return num_evictions_; }

  // Takes the block at the head of the free list (least recently freed), dropping any cached
  // content it held, with one reference; nullopt when every block is in use.
  std::optional<BlockId> allocate();
  // Adds a reference to `block` (a cache hit); an unreferenced block leaves the free list.
  void acquire(BlockId block);
  // Drops one reference; at zero the block joins the tail of the free list, keeping its cached
  // content until it is evicted.
  void release(BlockId block);

  // The cached block holding exactly `tokens` right after prefix `parent`, or nullopt.
  std::optional<BlockId> find(BlockHash hash, PrefixId parent, std::span<const TokenId> tokens) const;
  // Makes the referenced, full `block` findable as `tokens` after `parent`; returns the prefix id
  // it now ends. When identical content is already cached in another block, `block` stays
  // unregistered and that block's prefix id is returned.
  PrefixId register_block(BlockId block, BlockHash hash, PrefixId parent, std::span<const TokenId> tokens);

  int32_t ref_count(BlockId block) const { return blocks_[index(block)].ref_count; }
  // Whether `block` holds registered (findable) content.
  bool is_cached(BlockId block) const { return blocks_[index(block)].prefix_id != 0; }
  // The prefix id `block` ends when cached, else 0.
  PrefixId prefix_id(BlockId block) const { return blocks_[index(block)].prefix_id; }
  // The free list from head (evicted first) to tail.
  std::vector<BlockId> free_list() const;

 private:
  struct Block {
    int32_t ref_count = 0;
    PrefixId prefix_id = 0;  // 0 = no cached content
    PrefixId parent = 0;
    BlockHash hash = 0;
    std::vector<TokenId> tokens;  // the block's tokens while cached
    int32_t prev = -1;            // free-list links (indices; -1 = none)
    int32_t next = -1;
  };

  size_t index(BlockId block) const;
  void unlink(int32_t i);
  void push_back(int32_t i);
  void evict(int32_t i);

  int32_t block_size_;
  std::vector<Block> blocks_;
  int32_t head_ = -1;  // free list head: evicted first
  int32_t tail_ = -1;
  int32_t num_free_ = 0;
  int64_t num_evictions_ = 0;
  PrefixId next_prefix_id_ = 1;
  std::unordered_multimap<BlockHash, int32_t> cached_;  // hash -> block index
};

}  // namespace engine
