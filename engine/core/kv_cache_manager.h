// Per-sequence KV block tables over the BlockPool: prefix-cache lookup at admission, slot
// allocation as a sequence grows, registration of computed full blocks (prompt and generated
// tokens alike, so an agent's next prompt that extends this one hits), and freeing.
// It never decides who runs: the Scheduler asks, and gets nullopt when blocks are short.
//
// Sliding-window layers interleaved with global ones (Gemma 2 and 3) may have a pool of their
// own: there a sequence holds only the blocks its window covers (those before it go back to the
// pool as the sequence advances, cached content kept until evicted), so the window layers need
// a fraction of the memory. Their cached blocks are found by the chain hash and verified by
// their tokens and the global pool's prefix id of their parent, the same exact identity; a hit
// is as long as the global pool's, shortened to where the window pool still holds every block
// the next token's window covers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/core/block_pool.h"
#include "engine/core/sequence.h"

namespace engine {

// The cached full blocks that start a sequence's tokens.
struct CachedPrefix {
  std::vector<BlockId> blocks;
  int32_t num_tokens = 0;  // blocks.size() x block_size
  BlockHash last_hash = 0;
  PrefixId last_prefix = 0;
  // With a window pool: its cached blocks of blocks [window_begin, blocks.size()), the ones the
  // window of the first token to compute covers.
  std::vector<BlockId> window_blocks;
  int32_t window_begin = 0;
};

// H(parent_hash, block_tokens): the chain hash of one full block.
BlockHash hash_block(BlockHash parent, std::span<const TokenId> tokens);

class KvCacheManager {
 public:
  // `window_pool`, when given, holds the sliding layers' blocks (a `window`-position window).
  KvCacheManager(BlockPool& pool, bool enable_prefix_cache, BlockPool* window_pool = nullptr,
                 int32_t window = 0);

  int32_t block_size() const { return pool_.block_size(); }
  bool prefix_cache_enabled() const { return enable_prefix_cache_; }
  const BlockPool& pool() const { return pool_; }
  const BlockPool* window_pool() const { return window_pool_; }
  // The first block the window of the token at `position` covers (0 without a window pool).
  int32_t first_window_block(int32_t position) const;

  // The longest run of cached full blocks that starts `seq`'s tokens, capped at
  // num_tokens - 1 tokens so the last token is computed for its logits. Empty when disabled.
  CachedPrefix find_cached_prefix(const Sequence& seq) const;

  // Gives `seq` blocks for `num_new_tokens` more tokens after its computed ones. On a first
  // admission, `hit` (from find_cached_prefix, just before) becomes the head of its table and
  // the new tokens come after it. Returns the number of newly allocated blocks, or
  // nullopt (and changes nothing) when the pool has too few free blocks.
  std::optional<int32_t> allocate_slots(Sequence& seq, int32_t num_new_tokens,
                                        const CachedPrefix* hit = nullptr);
  // Whether allocate_slots with the same arguments would succeed now.
  bool can_allocate(const Sequence& seq, int32_t num_new_tokens, const CachedPrefix* hit = nullptr) const;

  // Registers `seq`'s full, computed blocks in the prefix cache (no-op when disabled).
  void cache_full_blocks(Sequence& seq);
  // Releases the window pool's blocks that `seq`'s next token no longer sees (after
  // cache_full_blocks, so that they stay cached).
  void slide_window(Sequence& seq);

  // Chain hashes of the full blocks `seq` completes when its computed tokens reach `end` (the
  // blocks past those already registered); what the step being scheduled will cache. Empty
  // when the prefix cache is disabled.
  std::vector<BlockHash> hashes_completed_by(const Sequence& seq, int32_t end) const;
  // The chain hash of the block right after `hit`, when find_cached_prefix could ever return
  // it (it is full and within the num_tokens - 1 cap); nullopt otherwise or when disabled.
  std::optional<BlockHash> next_block_hash(const Sequence& seq, const CachedPrefix& hit) const;

  // Returns every block of `seq` to the pool, last block first (so tails are evicted first).
  void free(Sequence& seq);

 private:
  struct Take {
    int32_t blocks = 0, window_blocks = 0;
  };
  // Blocks allocate_slots must take off the free lists: new ones, and unreferenced cached ones
  // that a first admission's `hit` reuses.
  Take blocks_to_take(const Sequence& seq, int32_t num_new_tokens, const CachedPrefix* hit) const;
  // Shortens `hit` to where the window pool holds the blocks its window needs, and finds them.
  void find_window_blocks(const Sequence& seq, CachedPrefix& hit, std::span<const PrefixId> prefixes,
                          std::span<const BlockHash> hashes) const;

  BlockPool& pool_;
  bool enable_prefix_cache_;
  BlockPool* window_pool_;
  int32_t window_;
};

}  // namespace engine
