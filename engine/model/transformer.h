// The decoder-only transformer of llama / qwen2 / qwen3 GGUF models on the CPU kernels: token
// embedding, N blocks of (RMSNorm, GQA self-attention with rope over a paged KV cache, residual,
// RMSNorm, SwiGLU FFN, residual), final RMSNorm and the output projection.
#pragma once

#include <expected>
#include <memory>
#include <span>
#include <vector>

#include "engine/core/kv_block_size.h"
#include "engine/error.h"
#include "engine/model/language_model.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "kernels/ops.h"
#include "kernels/thread_pool.h"

namespace engine {

namespace gguf {
class GgufFile;
}

class Transformer final : public LanguageModel {
 public:
  // A transformer over bound weights, running its kernels on `num_threads` threads (0 = all cores).
  Transformer(ModelConfig config, ModelWeights weights, int num_threads = 0);

  // Reads the config and binds the weights of `file` (which must outlive the transformer).
  static std::expected<std::unique_ptr<Transformer>, Error> from_gguf(const gguf::GgufFile& file,
                                                                      int num_threads = 0);

  const ModelShape& shape() const override { return config_.shape; }
  // Every hyper-parameter, rope and norm settings included.
  const ModelConfig& config() const { return config_; }
  // Threads the kernels run on.
  int num_threads() const { return pool_.num_threads(); }

  // The KV cache shape this model needs (layers, KV heads, head size) with the given storage.
  KvCacheShape kv_cache_shape(KvDtype dtype, int32_t block_size = kDefaultKvBlockSize) const;

  // See LanguageModel::forward. Token ids must be in [0, vocab_size) and the cache must have this
  // model's kv_cache_shape (both asserted). One call at a time: the activation buffers and the
  // thread pool belong to the transformer. Each row's logits depend only on its own sequence,
  // never on the other rows of the batch (bit for bit).
  void forward(const ForwardBatch& batch, PagedKvCache& cache, std::span<float> logits) override;

 private:
  // Fills slots_ (each row's KV slot: block * block_size + offset) and attn_seqs_ (each
  // sequence's rows and block table) for this batch; the same for every layer.
  void plan_attention(const ForwardBatch& batch, int32_t block_size);

  ModelConfig config_;
  ModelWeights weights_;
  kernels::RopeParams rope_;
  kernels::ThreadPool pool_;

  // Activation buffers, reused across calls (sized for the largest batch seen).
  std::vector<float> x_, h_, q_, k_, v_, attn_, proj_, gate_, up_, last_;
  std::vector<int32_t> slots_;                    // [n] KV slot of each row
  std::vector<kernels::AttentionSeq> attn_seqs_;  // [sequences] views of the batch's block tables
};

}  // namespace engine
