// Block tables, prefix-cache lookup and registration over the block pool.
#include "engine/core/kv_cache_manager.h"

#include <algorithm>
#include <cassert>
#include <optional>

namespace engine {

namespace {

constexpr BlockHash kRootHash = 0x6A09E667F3BCC908ull;

// splitmix64's finalizer: a cheap, well-mixed 64-bit permutation.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

int32_t ceil_div(int32_t a, int32_t b) {
  return (a + b - 1) / b;
}

}  // namespace

BlockHash hash_block(BlockHash parent, std::span<const TokenId> tokens) {
  uint64_t h = mix(parent ^ 0x9E3779B97F4A7C15ull);
  for (TokenId t : tokens) h = mix(h ^ static_cast<uint32_t>(t));
  return h;
}

KvCacheManager::KvCacheManager(BlockPool& pool, bool enable_prefix_cache, BlockPool* window_pool,
                               int32_t window)
    : pool_(pool), enable_prefix_cache_(enable_prefix_cache), window_pool_(window_pool), window_(window) {
  assert(!window_pool || (window > 0 && window_pool->block_size() == pool.block_size()));
}

int32_t KvCacheManager::first_window_block(int32_t position) const {
  return window_pool_ ? std::max(0, position - window_ + 1) / block_size() : 0;
}

CachedPrefix KvCacheManager::find_cached_prefix(const Sequence& seq) const {
  CachedPrefix hit;
  hit.last_hash = kRootHash;
  if (!enable_prefix_cache_) return hit;
  const int32_t bs = block_size();
  const auto tokens = seq.tokens();
  // Cap: at least the last token is left to compute.
  const int32_t max_blocks = (seq.num_tokens() - 1) / bs;
  std::vector<PrefixId> prefixes;  // of each block of the hit (the window pool's parents)
  std::vector<BlockHash> hashes;
  for (int32_t i = 0; i < max_blocks; ++i) {
    const auto block_tokens = tokens.subspan(static_cast<size_t>(i) * bs, static_cast<size_t>(bs));
    const BlockHash h = hash_block(hit.last_hash, block_tokens);
    const auto block = pool_.find(h, hit.last_prefix, block_tokens);
    if (!block) break;
    hit.blocks.push_back(*block);
    hit.last_hash = h;
    hit.last_prefix = pool_.prefix_id(*block);
    prefixes.push_back(hit.last_prefix);
    hashes.push_back(h);
  }
  if (window_pool_) find_window_blocks(seq, hit, prefixes, hashes);
  hit.num_tokens = static_cast<int32_t>(hit.blocks.size()) * bs;
  return hit;
}

void KvCacheManager::find_window_blocks(const Sequence& seq, CachedPrefix& hit,
                                        std::span<const PrefixId> prefixes,
                                        std::span<const BlockHash> hashes) const {
  const int32_t bs = block_size();
  const auto tokens = seq.tokens();
  const auto n = static_cast<int32_t>(hit.blocks.size());
  // found[i]: the window pool's block holding block i; last_missing[i]: the last j <= i without one
  std::vector<std::optional<BlockId>> found(static_cast<size_t>(n));
  std::vector<int32_t> last_missing(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    const auto block_tokens = tokens.subspan(static_cast<size_t>(i) * bs, static_cast<size_t>(bs));
    found[i] = window_pool_->find(hashes[i], i == 0 ? 0 : prefixes[i - 1], block_tokens);
    last_missing[i] = found[i] ? (i == 0 ? -1 : last_missing[i - 1]) : i;
  }
  // The longest hit of k blocks whose window, that of the token at k x bs, is all there.
  int32_t k = n;
  while (k > 0 && last_missing[k - 1] >= first_window_block(k * bs)) --k;
  hit.blocks.resize(static_cast<size_t>(k));
  hit.last_hash = k == 0 ? kRootHash : hashes[k - 1];
  hit.last_prefix = k == 0 ? 0 : prefixes[k - 1];
  hit.window_begin = first_window_block(k * bs);
  hit.window_blocks.clear();
  for (int32_t i = hit.window_begin; i < k; ++i) hit.window_blocks.push_back(*found[i]);
}

KvCacheManager::Take KvCacheManager::blocks_to_take(const Sequence& seq, int32_t num_new_tokens,
                                                    const CachedPrefix* hit) const {
  Take take;
  if (hit) {
    assert(seq.kv.block_table.empty() && seq.num_computed_tokens == 0);
    for (BlockId b : hit->blocks)
      if (pool_.ref_count(b) == 0) ++take.blocks;
    for (BlockId b : hit->window_blocks)
      if (window_pool_->ref_count(b) == 0) ++take.window_blocks;
  }
  const int32_t start = hit ? hit->num_tokens : seq.num_computed_tokens;
  const auto num_have = static_cast<int32_t>(hit ? hit->blocks.size() : seq.kv.block_table.size());
  const int32_t num_new = std::max(0, ceil_div(start + num_new_tokens, block_size()) - num_have);
  take.blocks += num_new;
  if (window_pool_) take.window_blocks += num_new;
  return take;
}

bool KvCacheManager::can_allocate(const Sequence& seq, int32_t num_new_tokens,
                                  const CachedPrefix* hit) const {
  const Take take = blocks_to_take(seq, num_new_tokens, hit);
  return take.blocks <= pool_.num_free() && (!window_pool_ || take.window_blocks <= window_pool_->num_free());
}

std::optional<int32_t> KvCacheManager::allocate_slots(Sequence& seq, int32_t num_new_tokens,
                                                      const CachedPrefix* hit) {
  if (!can_allocate(seq, num_new_tokens, hit)) return std::nullopt;
  auto& table = seq.kv.block_table;
  auto& window_table = seq.kv.window_table;
  const int32_t start = hit ? hit->num_tokens : seq.num_computed_tokens;
  if (hit) {
    for (BlockId b : hit->blocks) {
      pool_.acquire(b);
      table.push_back(b);
    }
    seq.kv.num_hashed_blocks = static_cast<int32_t>(hit->blocks.size());
    seq.kv.last_hash = hit->last_hash;
    seq.kv.last_prefix = hit->last_prefix;
    if (window_pool_) {
      window_table.assign(static_cast<size_t>(hit->window_begin), BlockId{});
      for (BlockId b : hit->window_blocks) {
        window_pool_->acquire(b);
        window_table.push_back(b);
      }
      seq.kv.window_begin = hit->window_begin;
    }
  }
  const int32_t num_needed =
      std::max(0, ceil_div(start + num_new_tokens, block_size()) - static_cast<int32_t>(table.size()));
  for (int32_t i = 0; i < num_needed; ++i) {
    const auto b = pool_.allocate();
    assert(b && "free blocks were counted above");
    table.push_back(*b);
    if (window_pool_) {
      const auto w = window_pool_->allocate();
      assert(w && "free window blocks were counted above");
      window_table.push_back(*w);
    }
  }
  return num_needed;
}

void KvCacheManager::cache_full_blocks(Sequence& seq) {
  if (!enable_prefix_cache_) return;
  const int32_t bs = block_size();
  const auto tokens = seq.tokens();
  auto& kv = seq.kv;
  if (kv.num_hashed_blocks == 0) kv.last_hash = kRootHash;
  const int32_t num_full = seq.num_computed_tokens / bs;
  for (int32_t i = kv.num_hashed_blocks; i < num_full; ++i) {
    const auto block_tokens = tokens.subspan(static_cast<size_t>(i) * bs, static_cast<size_t>(bs));
    const BlockHash h = hash_block(kv.last_hash, block_tokens);
    const PrefixId parent = kv.last_prefix;
    kv.last_prefix = pool_.register_block(kv.block_table[static_cast<size_t>(i)], h, parent, block_tokens);
    kv.last_hash = h;
    if (window_pool_ && i >= kv.window_begin)
      window_pool_->register_block(kv.window_table[static_cast<size_t>(i)], h, parent, block_tokens);
  }
  kv.num_hashed_blocks = std::max(kv.num_hashed_blocks, num_full);
}

void KvCacheManager::slide_window(Sequence& seq) {
  if (!window_pool_) return;
  auto& kv = seq.kv;
  const int32_t end =
      std::min(first_window_block(seq.num_computed_tokens), static_cast<int32_t>(kv.window_table.size()));
  for (; kv.window_begin < end; ++kv.window_begin) {
    auto& b = kv.window_table[static_cast<size_t>(kv.window_begin)];
    window_pool_->release(b);
    b = BlockId{};
  }
}

std::vector<BlockHash> KvCacheManager::hashes_completed_by(const Sequence& seq, int32_t end) const {
  std::vector<BlockHash> hashes;
  if (!enable_prefix_cache_) return hashes;
  const int32_t bs = block_size();
  const auto tokens = seq.tokens();
  BlockHash parent = seq.kv.num_hashed_blocks == 0 ? kRootHash : seq.kv.last_hash;
  for (int32_t i = seq.kv.num_hashed_blocks; i < end / bs; ++i) {
    parent = hash_block(parent, tokens.subspan(static_cast<size_t>(i) * bs, static_cast<size_t>(bs)));
    hashes.push_back(parent);
  }
  return hashes;
}

std::optional<BlockHash> KvCacheManager::next_block_hash(const Sequence& seq, const CachedPrefix& hit) const {
  if (!enable_prefix_cache_) return std::nullopt;
  const int32_t bs = block_size();
  if (static_cast<int32_t>(hit.blocks.size()) >= (seq.num_tokens() - 1) / bs) return std::nullopt;
  return hash_block(hit.last_hash,
                    seq.tokens().subspan(static_cast<size_t>(hit.num_tokens), static_cast<size_t>(bs)));
}

void KvCacheManager::free(Sequence& seq) {
  if (window_pool_) {
    const auto& held = seq.kv.window_table;
    for (auto i = static_cast<int32_t>(held.size()) - 1; i >= seq.kv.window_begin; --i)
      window_pool_->release(held[static_cast<size_t>(i)]);
  }
  auto& table = seq.kv.block_table;
  for (auto it = table.rbegin(); it != table.rend(); ++it) pool_.release(*it);
  seq.kv = SeqKvState{};
}

}  // namespace engine
