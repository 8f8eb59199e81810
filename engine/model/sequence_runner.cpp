// SequenceRunner: builds a one-sequence ForwardBatch per eval() call.
#include "engine/model/sequence_runner.h"

#include <fmt/format.h>

#include <numeric>

namespace engine {

namespace {

KvCacheShape cache_shape(const ModelShape& s, KvDtype dtype, int32_t block_size) {
  return KvCacheShape{s.num_layers, s.num_kv_heads, s.head_dim, block_size, dtype, {}};
}

}  // namespace

SequenceRunner::SequenceRunner(LanguageModel& model, int32_t max_tokens, KvDtype dtype, int32_t block_size)
    : model_(model),
      max_tokens_(max_tokens),
      cache_(cache_shape(model.shape(), dtype, block_size), (max_tokens + block_size - 1) / block_size),
      block_table_(static_cast<size_t>(cache_.num_blocks())) {
  std::iota(block_table_.begin(), block_table_.end(), 0);
}

std::expected<std::vector<float>, Error> SequenceRunner::eval(std::span<const int32_t> tokens,
                                                              bool all_logits) {
  const int32_t vocab = model_.shape().vocab_size;
  if (tokens.empty()) return std::unexpected(Error{"no tokens to evaluate"});
  for (int32_t t : tokens)
    if (t < 0 || t >= vocab)
      return std::unexpected(Error{fmt::format("token id {} is outside the vocabulary [0, {})", t, vocab)});
  const auto count = static_cast<int32_t>(tokens.size());
  if (count > max_tokens_ - num_tokens_)
    return std::unexpected(Error{fmt::format("sequence of {} tokens does not fit: {} evaluated, room for {}",
                                             num_tokens_ + count, num_tokens_, max_tokens_)});

  ForwardBatch batch;
  batch.tokens.assign(tokens.begin(), tokens.end());
  batch.positions.resize(tokens.size());
  std::iota(batch.positions.begin(), batch.positions.end(), num_tokens_);
  batch.seqs.push_back(BatchSeq{block_table_, num_tokens_, 0, count, {}});
  if (all_logits) {
    batch.logit_rows.resize(tokens.size());
    std::iota(batch.logit_rows.begin(), batch.logit_rows.end(), 0);
  } else {
    batch.logit_rows.push_back(count - 1);
  }
  std::vector<float> logits(batch.logit_rows.size() * static_cast<size_t>(vocab));
  model_.forward(batch, cache_, logits);
  num_tokens_ += count;
  return logits;
}

int32_t argmax(std::span<const float> logits) {
  size_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[best]) best = i;
  return static_cast<int32_t>(best);
}

}  // namespace engine
