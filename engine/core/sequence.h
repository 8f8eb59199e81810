// One request's sequence as the serving core sees it: its tokens (prompt, then output), how
// many of them are in the KV cache, its block table, its sampling state and its timings.
// A plain record: the KvCacheManager edits `kv`, the Scheduler edits `num_computed_tokens` and
// `status`, the EngineCore appends tokens. It never allocates blocks itself.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/core/block_pool.h"
#include "engine/core/ids.h"
#include "engine/core/output_text.h"
#include "engine/core/request.h"
#include "engine/sampling/constraint.h"
#include "engine/sampling/sampler.h"

namespace engine {

enum class SeqStatus { Waiting, Running, Finished };

// A sequence's blocks and its progress through the prefix cache (owned by the KvCacheManager).
struct SeqKvState {
  // Invariant: block_table covers every position the scheduler has granted, i.e. at least
  // num_computed_tokens positions, rounded up to whole blocks.
  std::vector<BlockId> block_table;
  int32_t num_hashed_blocks = 0;  // leading full blocks already registered or found in the cache
  BlockHash last_hash = 0;        // chain hash of block num_hashed_blocks - 1
  PrefixId last_prefix = 0;       // prefix id of block num_hashed_blocks - 1 (0 = empty prefix)
  // Where the sliding layers have a pool of their own: their block of each entry of block_table.
  // Only blocks the window still covers are held, [window_begin, block_table.size()); those
  // before were released (entries left empty).
  std::vector<BlockId> window_table;
  int32_t window_begin = 0;
};

class Sequence {
 public:
  Sequence(SeqId id, std::vector<TokenId> prompt, SamplingParams sampling, Clock::time_point arrival);

  SeqId id() const { return id_; }
  std::span<const TokenId> tokens() const { return tokens_; }
  int32_t num_tokens() const { return static_cast<int32_t>(tokens_.size()); }
  int32_t num_prompt_tokens() const { return num_prompt_tokens_; }
  int32_t num_output_tokens() const { return num_tokens() - num_prompt_tokens_; }
  std::span<const TokenId> output_tokens() const { return std::span(tokens_).subspan(num_prompt_tokens_); }
  // Tokens still to be written to the KV cache (> 0 for every running sequence).
  int32_t num_uncomputed_tokens() const { return num_tokens() - num_computed_tokens; }
  // Appends an output token (sampled or forced); it is computed in a later step.
  void append_token(TokenId token) { tokens_.push_back(token); }

  SamplingParams sampling;
  int32_t priority = 0;
  std::optional<Clock::time_point> deadline;
  Clock::time_point arrival;

  SeqStatus status = SeqStatus::Waiting;
  // Invariant: 0 <= num_computed_tokens < num_tokens() while the sequence is unfinished (the
  // last token is always still to compute: its logits choose the next one).
  int32_t num_computed_tokens = 0;
  SeqKvState kv;

  SamplerRng rng;
  std::optional<Constraint> constraint;
  OutputText text;
  std::vector<TokenId> pending_tokens;  // output tokens not yet handed to the caller

  // Bookkeeping for results and metrics.
  int32_t num_cached_prompt_tokens = -1;  // prefix-cache hit at first admission (-1: not admitted yet)
  int32_t num_preemptions = 0;
  std::optional<Clock::time_point> first_scheduled;
  std::optional<Clock::time_point> first_token;
  std::optional<Clock::time_point> last_token;

 private:
  SeqId id_;
  std::vector<TokenId> tokens_;
  int32_t num_prompt_tokens_;
};

}  // namespace engine
