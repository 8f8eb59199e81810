// The model seen by the serving core: a shape and one batched forward pass over a paged KV cache.
// The GGUF-backed transformer (engine/model/transformer.h) implements it; tests may add fakes.
#pragma once

#include <cstdint>
#include <span>

#include "engine/model/forward_batch.h"
#include "engine/model/kv_cache.h"
#include "engine/model/model_shape.h"

namespace engine {

class LanguageModel {
 public:
  virtual ~LanguageModel() = default;

  // The model's shape.
  virtual const ModelShape& shape() const = 0;

  // Runs every row of `batch` through the model: writes each row's K and V into `cache` at its
  // sequence's block table, attends causally over that sequence's positions [0, position], and
  // writes the logits of batch.logit_rows to `logits` ([logit_rows.size(), vocab_size], row-major).
  virtual void forward(const ForwardBatch& batch, PagedKvCache& cache, std::span<float> logits) = 0;
};

}  // namespace engine
