// The transformer forward pass: one flattened batch of rows from any number of sequences goes
// through every layer together (one matmul per weight for all rows, one K/V store through a slot
// mapping and one attention call per layer), each sequence attending over its own paged K/V.
#include "engine/model/transformer.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "engine/gguf/gguf_file.h"
#include "engine/model/device_scratch.h"
#include "kernels/cpu/cpu_backend.h"

namespace engine {

Transformer::Transformer(ModelConfig config, ModelWeights weights, std::unique_ptr<kernels::Backend> backend)
    : config_(std::move(config)), weights_(std::move(weights)), backend_(std::move(backend)) {
  rope_.style = config_.rope_style;
  rope_.rot_dim = config_.rope_dim;
  rope_.freq_base = config_.rope_freq_base;
  rope_.freq_scale = config_.rope_freq_scale;
  rope_.freq_factors = weights_.rope_freqs.empty() ? nullptr : weights_.rope_freqs.data();
  rope_.attn_factor = config_.rope_attn_factor;
  window_rope_ = rope_;
  if (config_.rope_freq_base_window > 0) {  // gemma3: the sliding layers' own rope
    window_rope_.freq_base = config_.rope_freq_base_window;
    window_rope_.freq_scale = config_.rope_freq_scale_window;
  }
}

std::expected<std::unique_ptr<Transformer>, Error> Transformer::from_gguf(const gguf::GgufFile& file,
                                                                          int num_threads, int64_t context) {
  auto backend = kernels::make_cpu_backend(num_threads);
  if (!backend) return std::unexpected(Error{backend.error()});
  auto config = read_model_config(file);
  if (!config) return std::unexpected(config.error());
  auto weights = bind_weights(file, *config);
  if (!weights) return std::unexpected(weights.error());
  // LongRoPE: the long factors for contexts past the original one, else the short ones
  const int64_t serving = context > 0 ? context : config->shape.context_length;
  if (!weights->rope_factors_long.empty())
    weights->rope_freqs =
        serving > config->rope_original_context ? weights->rope_factors_long : weights->rope_factors_short;
  return std::make_unique<Transformer>(std::move(*config), std::move(*weights), std::move(*backend));
}

KvCacheShape Transformer::kv_cache_shape(KvDtype dtype, int32_t block_size) const {
  KvCacheShape shape{
      config_.shape.num_layers, config_.shape.num_kv_heads, config_.shape.head_dim, block_size, dtype, {}};
  for (int32_t l = 0; l < config_.shape.num_layers; ++l)
    shape.sliding.push_back(config_.shape.window_of(l) > 0);
  return shape;
}

void Transformer::plan_attention(const ForwardBatch& batch, const PagedKvCache& cache) {
  const int32_t block_size = cache.shape().block_size;
  const bool windowed = cache.window_blocks() > 0;
  auto plan = [&](AttentionPlan& p, auto table_of) {
    p.slots.resize(batch.positions.size());
    p.seqs.clear();
    for (const BatchSeq& seq : batch.seqs) {
      const std::vector<int32_t>& table = table_of(seq);
      for (int32_t i = 0; i < seq.num_rows; ++i) {
        const auto r = static_cast<size_t>(seq.first_row + i);
        const int32_t pos = batch.positions[r];
        assert(pos / block_size < static_cast<int32_t>(table.size()));
        p.slots[r] = table[static_cast<size_t>(pos / block_size)] * block_size + pos % block_size;
      }
      p.seqs.push_back({table, seq.first_row, seq.num_rows});
    }
  };
  plan(plan_, [](const BatchSeq& seq) -> const std::vector<int32_t>& { return seq.block_table; });
  if (windowed)
    plan(window_plan_, [](const BatchSeq& seq) -> const std::vector<int32_t>& {
      assert(seq.window_table.size() == seq.block_table.size());
      return seq.window_table;
    });
}

Transformer::Activations Transformer::activations(int64_t n, int64_t m) {
  const ModelShape& s = config_.shape;
  const int64_t embd = s.embedding_dim, ffn = s.ffn_dim;
  const int64_t q_dim = int64_t{s.num_heads} * s.head_dim, kv_dim = int64_t{s.num_kv_heads} * s.head_dim;
  const int64_t ffn_rows = config_.is_moe() ? 0 : n;  // experts keep their own scratch (MoeFfn)
  auto buf = [&](size_t i, int64_t count) { return reserve(*backend_, scratch_[i], count); };
  return Activations{
      .x = buf(0, n * embd),           // [n, embd] residual stream
      .h = buf(1, n * embd),           // [n, embd] normalised input of a block
      .q = buf(2, n * q_dim),          // [n, num_heads, head_dim]
      .k = buf(3, n * kv_dim),         // [n, num_kv_heads, head_dim]
      .v = buf(4, n * kv_dim),         // [n, num_kv_heads, head_dim]
      .attn = buf(5, n * q_dim),       // [n, num_heads, head_dim]
      .proj = buf(6, n * embd),        // [n, embd] a block's output before the residual add
      .gate = buf(7, ffn_rows * ffn),  // [n, ffn]
      .up = buf(8, ffn_rows * ffn),    // [n, ffn]
      .last = buf(9, m * embd),        // [m, embd] rows whose logits are wanted
  };
}

void Transformer::add_bias(std::span<float> x, std::span<const float> bias) {
  if (!bias.empty()) backend_->add_bias(x, bias);
}

void Transformer::block(int32_t l, const ForwardBatch& batch, PagedKvCache& cache, const Activations& a) {
  const ModelShape& s = config_.shape;
  const LayerWeights& L = weights_.layers[static_cast<size_t>(l)];
  const int64_t n = batch.num_tokens(), embd = s.embedding_dim;
  const int32_t hd = s.head_dim;
  const float eps = config_.rms_norm_eps;
  const float scale =
      config_.query_scale > 0 ? config_.query_scale : 1.0f / std::sqrt(static_cast<float>(hd));
  kernels::Backend& be = *backend_;

  // h = rmsnorm(x) * attn_norm
  be.rmsnorm(a.x, L.attn_norm, embd, eps, a.h);
  // q = h·Wqᵀ + bq, k = h·Wkᵀ + bk, v = h·Wvᵀ + bv (biases only where the model has them)
  const kernels::MatmulTarget qkv[] = {{L.attn_q, a.q}, {L.attn_k, a.k}, {L.attn_v, a.v}};
  be.matmul_group(qkv, a.h, n);
  add_bias(a.q, L.q_bias);
  add_bias(a.k, L.k_bias);
  add_bias(a.v, L.v_bias);
  // qwen3: q and k normalised per head over head_dim
  if (config_.qk_norm) {
    be.rmsnorm(a.q, L.q_norm, hd, eps, a.q);
    be.rmsnorm(a.k, L.k_norm, hd, eps, a.k);
  }
  // q, k rotated by each row's position (gemma3: sliding layers with their own base)
  const int32_t window = config_.shape.window_of(l);
  const kernels::RopeParams& rope = window > 0 ? window_rope_ : rope_;
  be.rope(a.q, batch.positions, s.num_heads, hd, rope);
  be.rope(a.k, batch.positions, s.num_kv_heads, hd, rope);
  // cache[slot of row r] = (k[r], v[r])
  const AttentionPlan& at = cache.windowed(l) ? window_plan_ : plan_;
  be.store_kv(cache.mutable_layer(l), a.k, a.v, at.slots);
  // attn = softmax(q·Kᵀ / sqrt(head_dim), causal) · V, each sequence over its own positions
  // (its last `sliding_window` ones, where the model has a window), every sequence in one call
  kernels::KvLayerView kv = cache.layer_view(l);
  kv.window = window;  // phi3, gemma2, gemma3: each row sees its last `window` positions only
  be.paged_attention_batch(a.q, batch.positions, s.num_heads, kv, at.seqs, {scale, config_.attn_softcap},
                           a.attn);
  // x = x + attn·Woᵀ (gemma2: x + rmsnorm(attn·Woᵀ) * post_attention_norm)
  be.matmul(L.attn_output, a.attn, n, a.proj);
  if (!L.attn_post_norm.empty()) be.rmsnorm(a.proj, L.attn_post_norm, embd, eps, a.proj);
  be.add(a.x, a.proj, a.x);

  // h = rmsnorm(x) * ffn_norm
  be.rmsnorm(a.x, L.ffn_norm, embd, eps, a.h);
  // proj = FFN(h), or the mixture of the row's experts
  if (config_.is_moe())
    moe_.forward(be, config_, L.moe, a.h, n, a.proj);
  else
    dense_ffn(L.ffn, n, a);
  // x = x + proj (gemma2: x + rmsnorm(proj) * post_ffw_norm)
  if (!L.ffn_post_norm.empty()) be.rmsnorm(a.proj, L.ffn_post_norm, embd, eps, a.proj);
  be.add(a.x, a.proj, a.x);
}

void Transformer::dense_ffn(const FfnWeights& f, int64_t n, const Activations& a) {
  kernels::Backend& be = *backend_;
  // gate = h·Wgᵀ, up = h·Wuᵀ
  const kernels::MatmulTarget gate_up[] = {{f.gate, a.gate}, {f.up, a.up}};
  be.matmul_group(gate_up, a.h, n);
  // gate = silu(gate) * up (gemma2: gelu(gate) * up)
  if (config_.gelu_ffn)
    be.geglu(a.gate, a.up, a.gate);
  else
    be.swiglu(a.gate, a.up, a.gate);
  // proj = gate·Wdᵀ
  be.matmul(f.down, a.gate, n, a.proj);
}

void Transformer::forward(const ForwardBatch& batch, PagedKvCache& cache, std::span<float> logits) {
  const ModelShape& s = config_.shape;
  const int64_t n = batch.num_tokens();
  const int64_t m = static_cast<int64_t>(batch.logit_rows.size());
  const int64_t embd = s.embedding_dim;
  assert(cache.shape().num_layers == s.num_layers && cache.shape().num_kv_heads == s.num_kv_heads &&
         cache.shape().head_dim == s.head_dim);
  assert(static_cast<int64_t>(logits.size()) == m * s.vocab_size);
  if (n == 0) return;
  assert(std::all_of(batch.tokens.begin(), batch.tokens.end(),
                     [&](int32_t t) { return t >= 0 && t < s.vocab_size; }));
  const Activations a = activations(n, m);
  // each row's KV slot and each sequence's block table, per kind of layer
  plan_attention(batch, cache);

  // x = token_embd[tokens] (gemma2: * sqrt(embd))
  backend_->embedding(weights_.token_embd, batch.tokens, a.x);
  if (config_.embedding_scale != 1.0f) backend_->scale(a.x, config_.embedding_scale);
  for (int32_t l = 0; l < s.num_layers; ++l) block(l, batch, cache, a);
  // last = x[logit_rows]
  backend_->gather_rows(a.x, batch.logit_rows, embd, a.last);
  // last = rmsnorm(last) * output_norm
  backend_->rmsnorm(a.last, weights_.output_norm, embd, config_.rms_norm_eps, a.last);
  // logits = last·W_outᵀ ([m, vocab]), brought to the host
  const std::span<float> out = backend_->staging(logits, logits_);
  backend_->matmul(weights_.output, a.last, m, out);
  backend_->download(out, logits);
  // gemma2: logits = cap * tanh(logits / cap)
  if (const float cap = config_.final_softcap; cap > 0)
    for (float& v : logits) v = cap * std::tanh(v * (1.0f / cap));
}

}  // namespace engine
