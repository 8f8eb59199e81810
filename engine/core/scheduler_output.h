// The Scheduler's decision for one step, as one value: which sequences run how many tokens
// (prefill chunks and decodes alike), who was preempted, and the prefix-cache lookups made.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/ids.h"

namespace engine {

class Sequence;

// One sequence's share of a step: tokens [num_computed_tokens, num_computed_tokens + num_new_tokens).
struct ScheduledSeq {
  Sequence* seq = nullptr;
  int32_t num_new_tokens = 0;
  bool needs_logits = false;  // the chunk ends at the sequence's last token: sample after it
};

struct SchedulerOutput {
  std::vector<ScheduledSeq> seqs;
  int32_t num_batched_tokens = 0;
  std::vector<SeqId> preempted;    // sent back to the waiting queue for want of blocks (freed)
  std::vector<SeqId> displaced;    // sent back to make room for a more urgent waiting request
  std::vector<SeqId> admitted;     // moved from waiting to running this step
  int64_t num_prefix_queries = 0;  // tokens looked up in the prefix cache at admission
  int64_t num_prefix_hits = 0;     // of which found

  bool empty() const { return seqs.empty(); }
};

}  // namespace engine
