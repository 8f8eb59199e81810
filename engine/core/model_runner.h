// Turns one SchedulerOutput into one flattened ForwardBatch (token ids, positions, block
// tables, the rows that need logits) and runs the model over the paged KV cache. Holds only
// reusable buffers, no state that outlives a step.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/scheduler_output.h"
#include "engine/model/forward_batch.h"
#include "engine/model/kv_cache.h"
#include "engine/model/language_model.h"

namespace engine {

// The flattened batch of one step: sequences in `out.seqs` order, their rows contiguous; a
// logit row for each sequence whose chunk ends at its last token. With `zero_window_block` >= 0
// (the sliding layers have blocks of their own, that one never written), each sequence's window
// table too, the released blocks before its window naming the zero block.
ForwardBatch build_forward_batch(const SchedulerOutput& out, int32_t zero_window_block = -1);

class ModelRunner {
 public:
  ModelRunner(LanguageModel& model, PagedKvCache& cache);

  // Runs the step `out`; returns the logits, one row of vocab_size per sequence with
  // needs_logits, in `out.seqs` order ([num_logit_rows, vocab_size], valid until the next call).
  std::span<const float> execute(const SchedulerOutput& out);

  int32_t vocab_size() const { return model_.shape().vocab_size; }
  // The batch of the last execute() call.
  const ForwardBatch& last_batch() const { return batch_; }

 private:
  LanguageModel& model_;
  PagedKvCache& cache_;
  ForwardBatch batch_;
  std::vector<float> logits_;  // [num_logit_rows, vocab_size]
};

}  // namespace engine
