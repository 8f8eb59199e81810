// One sequence through a LanguageModel with a private KV cache of contiguous blocks: append
// tokens, get logits. The single-sequence caller of the batched forward pass (arena eval, tests,
// benchmarks); the serving core builds multi-sequence batches itself.
#pragma once

#include <cstdint>
#include <expected>
#include <span>
#include <vector>

#include "engine/error.h"
#include "engine/model/kv_cache.h"
#include "engine/model/language_model.h"

namespace engine {

class SequenceRunner {
 public:
  // Room for `max_tokens` positions in a cache of `dtype` blocks of `block_size`.
  SequenceRunner(LanguageModel& model, int32_t max_tokens, KvDtype dtype = KvDtype::F32,
                 int32_t block_size = kDefaultKvBlockSize);

  // Appends `tokens` at the next positions and returns their logits: [tokens.size(), vocab] when
  // all_logits, else [1, vocab] for the last token. Errors: empty input, a token id outside the
  // vocabulary, or more tokens than the runner has room for.
  std::expected<std::vector<float>, Error> eval(std::span<const int32_t> tokens, bool all_logits);

  // Positions evaluated so far.
  int32_t num_tokens() const { return num_tokens_; }
  // Forgets the sequence (the cache is reused from position 0).
  void reset() { num_tokens_ = 0; }

 private:
  LanguageModel& model_;
  int32_t max_tokens_;
  PagedKvCache cache_;
  std::vector<int32_t> block_table_;  // 0, 1, 2, ...: the whole cache belongs to this sequence
  int32_t num_tokens_ = 0;
};

// Index of the largest value (the first on ties): the greedy choice from one row of logits.
int32_t argmax(std::span<const float> logits);

}  // namespace engine
