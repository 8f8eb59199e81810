// One flattened batch for one forward pass: prefill chunks and decode tokens of any number of
// sequences, each with its own paged KV block table. Built by the ModelRunner (engine II) or by
// a single-sequence caller (eval, generate); consumed by LanguageModel::forward.
#pragma once

#include <cstdint>
#include <vector>

namespace engine {

// One sequence's share of a flattened batch.
struct BatchSeq {
  // KV block ids holding this sequence's positions [0, num_context + num_rows), in order:
  // position p lives in block block_table[p / block_size], slot p % block_size.
  std::vector<int32_t> block_table;
  int32_t num_context = 0;  // positions already in the KV cache before this step
  int32_t first_row = 0;    // first row of this sequence in the batch
  int32_t num_rows = 0;     // rows this step, at positions num_context .. num_context + num_rows - 1
  // Where the cache gives the sliding layers a storage of their own (PagedKvCache::window_blocks):
  // their block of each entry of block_table, those before the window naming a block of zeros
  // that no row writes (the attention kernel may read a tile's keys before the window, never
  // their values' weight). Empty otherwise: the sliding layers use block_table.
  std::vector<int32_t> window_table;
};

struct ForwardBatch {
  std::vector<int32_t> tokens;      // [num_tokens] token id per row
  std::vector<int32_t> positions;   // [num_tokens] position per row (rope and KV slot)
  std::vector<BatchSeq> seqs;       // rows of seqs[i] are [first_row, first_row + num_rows), contiguous
  std::vector<int32_t> logit_rows;  // ascending rows whose logits are wanted

  int32_t num_tokens() const { return static_cast<int32_t>(tokens.size()); }
};

}  // namespace engine
