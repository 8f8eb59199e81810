// Block tables, prefix-cache lookup and registration over the block pool.
#include "engine/core/kv_cache_manager.h"

#include <cassert>

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

KvCacheManager::KvCacheManager(BlockPool& pool, bool enable_prefix_cache)
    : pool_(pool), enable_prefix_cache_(enable_prefix_cache) {}

CachedPrefix KvCacheManager::find_cached_prefix(const Sequence& seq) const {
  CachedPrefix hit;
  hit.last_hash = kRootHash;
  if (!enable_prefix_cache_) return hit;
  const int32_t bs = block_size();
  const auto tokens = seq.tokens();
  // Cap: at least the last token is left to compute.
  const int32_t max_blocks = (seq.num_tokens() - 1) / bs;
  for (int32_t i = 0; i < max_blocks; ++i) {
    const auto block_tokens = tokens.subspan(static_cast<size_t>(i) * bs, static_cast<size_t>(bs));
    const BlockHash h = hash_block(hit.last_hash, block_tokens);
    const auto block = pool_.find(h, hit.last_prefix, block_tokens);
    if (!block) break;
    hit.blocks.push_back(*block);
    hit.last_hash = h;
    hit.last_prefix = pool_.prefix_id(*block);
  }
  hit.num_tokens = static_cast<int32_t>(hit.blocks.size()) * bs;
  return hit;
}

int32_t KvCacheManager::blocks_to_take(const Sequence& seq, int32_t num_new_tokens,
                                       const CachedPrefix* hit) const {
  int32_t num_reused_free = 0;
  if (hit) {
    assert(seq.kv.block_table.empty() && seq.num_computed_tokens == 0);
    for (BlockId b : hit->blocks)
      if (pool_.ref_count(b) == 0) ++num_reused_free;
  }
  const int32_t start = hit ? hit->num_tokens : seq.num_computed_tokens;
  const auto num_have = static_cast<int32_t>(hit ? hit->blocks.size() : seq.kv.block_table.size());
  return num_reused_free + std::max(0, ceil_div(start + num_new_tokens, block_size()) - num_have);
}

bool KvCacheManager::can_allocate(const Sequence& seq, int32_t num_new_tokens,
                                  const CachedPrefix* hit) const {
  return blocks_to_take(seq, num_new_tokens, hit) <= pool_.num_free();
}

std::optional<int32_t> KvCacheManager::allocate_slots(Sequence& seq, int32_t num_new_tokens,
                                                      const CachedPrefix* hit) {
  if (!can_allocate(seq, num_new_tokens, hit)) return std::nullopt;
  auto& table = seq.kv.block_table;
  const int32_t start = hit ? hit->num_tokens : seq.num_computed_tokens;
  if (hit) {
    for (BlockId b : hit->blocks) {
      pool_.acquire(b);
      table.push_back(b);
    }
    seq.kv.num_hashed_blocks = static_cast<int32_t>(hit->blocks.size());
    seq.kv.last_hash = hit->last_hash;
    seq.kv.last_prefix = hit->last_prefix;
  }
  const int32_t num_needed =
      std::max(0, ceil_div(start + num_new_tokens, block_size()) - static_cast<int32_t>(table.size()));
  for (int32_t i = 0; i < num_needed; ++i) {
    const auto b = pool_.allocate();
    assert(b && "free blocks were counted above");
    table.push_back(*b);
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
    kv.last_prefix =
        pool_.register_block(kv.block_table[static_cast<size_t>(i)], h, kv.last_prefix, block_tokens);
    kv.last_hash = h;
  }
  kv.num_hashed_blocks = std::max(kv.num_hashed_blocks, num_full);
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
  auto& table = seq.kv.block_table;
  for (auto it = table.rbegin(); it != table.rend(); ++it) pool_.release(*it);
  seq.kv = SeqKvState{};
}

}  // namespace engine
