// SchedulerOutput -> ForwardBatch -> LanguageModel::forward.
#include "engine/core/model_runner.h"

#include <cassert>

#include "engine/core/sequence.h"

namespace engine {

ForwardBatch build_forward_batch(const SchedulerOutput& out, int32_t zero_window_block) {
  ForwardBatch batch;
  batch.tokens.reserve(static_cast<size_t>(out.num_batched_tokens));
  batch.positions.reserve(static_cast<size_t>(out.num_batched_tokens));
  for (const auto& s : out.seqs) {
    const Sequence& seq = *s.seq;
    BatchSeq bs;
    bs.num_context = seq.num_computed_tokens;
    bs.first_row = batch.num_tokens();
    bs.num_rows = s.num_new_tokens;
    bs.block_table.reserve(seq.kv.block_table.size());
    for (BlockId b : seq.kv.block_table) bs.block_table.push_back(b.value);
    if (zero_window_block >= 0) {
      assert(seq.kv.window_table.size() == seq.kv.block_table.size());
      for (size_t i = 0; i < seq.kv.window_table.size(); ++i)
        bs.window_table.push_back(
            static_cast<int32_t>(i) < seq.kv.window_begin ? zero_window_block : seq.kv.window_table[i].value);
    }
    const auto tokens = seq.tokens();
    for (int32_t p = seq.num_computed_tokens; p < seq.num_computed_tokens + s.num_new_tokens; ++p) {
      batch.tokens.push_back(tokens[static_cast<size_t>(p)]);
      batch.positions.push_back(p);
    }
    if (s.needs_logits) batch.logit_rows.push_back(bs.first_row + bs.num_rows - 1);
    batch.seqs.push_back(std::move(bs));
  }
  return batch;
}

ModelRunner::ModelRunner(LanguageModel& model, PagedKvCache& cache) : model_(model), cache_(cache) {}

std::span<const float> ModelRunner::execute(const SchedulerOutput& out) {
  batch_ = build_forward_batch(out, cache_.window_blocks() > 0 ? cache_.window_blocks() - 1 : -1);
  const size_t vocab = static_cast<size_t>(vocab_size());
  logits_.resize(batch_.logit_rows.size() * vocab);
  if (batch_.num_tokens() > 0) model_.forward(batch_, cache_, logits_);
  return logits_;
}

}  // namespace engine
