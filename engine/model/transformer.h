// The decoder-only transformer of the GGUF models model_config.h lists, over a compute backend
// (kernels/ops.h): token embedding, N blocks of (RMSNorm, GQA self-attention with rope over a
// paged KV cache, residual, RMSNorm, SwiGLU FFN or a mixture of experts (moe_ffn.h), residual),
// final RMSNorm and the output projection. The forward pass calls only the backend's ops, never a device's
// own code.
#pragma once

#include <array>
#include <expected>
#include <memory>
#include <span>
#include <vector>

#include "engine/core/kv_block_size.h"
#include "engine/error.h"
#include "engine/model/language_model.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "engine/model/moe_ffn.h"
#include "kernels/ops.h"

namespace engine {

namespace gguf {
class GgufFile;
}

class Transformer final : public LanguageModel {
 public:
  // A transformer over bound weights, running its ops on `backend`.
  Transformer(ModelConfig config, ModelWeights weights, std::unique_ptr<kernels::Backend> backend);

  // Reads the config and binds the weights of `file` (which must outlive the transformer), on a
  // CPU backend of `num_threads` threads (0 = all cores). `context`: the longest sequence it will
  // run (0: the trained context), which picks LongRoPE's long or short factors as llama.cpp does.
  static std::expected<std::unique_ptr<Transformer>, Error> from_gguf(const gguf::GgufFile& file,
                                                                      int num_threads = 0,
                                                                      int64_t context = 0);

  const ModelShape& shape() const override { return config_.shape; }
  // Every hyper-parameter, rope and norm settings included.
  const ModelConfig& config() const { return config_; }
  // The backend the ops run on.
  const kernels::Backend& backend() const { return *backend_; }
  // Host threads the ops run on.
  int num_threads() const { return backend_->num_threads(); }

  // The KV cache shape this model needs (layers, KV heads, head size) with the given storage.
  KvCacheShape kv_cache_shape(KvDtype dtype, int32_t block_size = kDefaultKvBlockSize) const;

  // See LanguageModel::forward. Token ids must be in [0, vocab_size) and the cache must have this
  // model's kv_cache_shape (both asserted). One call at a time: the activation buffers and the
  // backend belong to the transformer. Each row's logits depend only on its own sequence, never
  // on the other rows of the batch (bit for bit).
  void forward(const ForwardBatch& batch, PagedKvCache& cache, std::span<float> logits) override;

 private:
  // One step's activations: spans of the scratch buffers sized for its n rows (m logit rows).
  struct Activations {
    std::span<float> x, h, q, k, v, attn, proj, gate, up, last;
  };
  // Where one kind of layer writes and reads this step's K/V.
  struct AttentionPlan {
    std::vector<int32_t> slots;               // [n] KV slot of each row: block * block_size + offset
    std::vector<kernels::AttentionSeq> seqs;  // [sequences] each one's rows and block table
  };
  // Fills plan_ for this batch, and window_plan_ where the cache gives the sliding layers their
  // own blocks; the same for every layer of a kind.
  void plan_attention(const ForwardBatch& batch, const PagedKvCache& cache);
  // The activations of a step of n rows and m logit rows, growing the scratch buffers to fit.
  Activations activations(int64_t n, int64_t m);
  // One transformer block on the step's activations (x in, x out).
  void block(int32_t layer, const ForwardBatch& batch, PagedKvCache& cache, const Activations& a);
  // a.proj = the dense FFN of a.h (SwiGLU; gemma2: GeGLU).
  void dense_ffn(const FfnWeights& f, int64_t n, const Activations& a);
  // x[n, dim] += bias[dim], when the model has that bias.
  void add_bias(std::span<float> x, std::span<const float> bias);

  ModelConfig config_;
  ModelWeights weights_;
  kernels::RopeParams rope_;
  kernels::RopeParams window_rope_;  // the sliding-window layers' (gemma3's differ; else rope_)
  std::unique_ptr<kernels::Backend> backend_;

  // Scratch buffers on the backend's device, reused across calls (sized for the largest batch
  // seen), in the order of Activations; logits_ stages the logits where the device is not the host.
  std::array<kernels::DeviceBuffer, 10> scratch_;
  kernels::DeviceBuffer logits_;
  AttentionPlan plan_;         // every layer's, or the global layers' where sliding ones have their own
  AttentionPlan window_plan_;  // the sliding layers' own blocks (BatchSeq::window_table)
  MoeFfn moe_;                 // the expert FFN's routing state and scratch
};

}  // namespace engine
