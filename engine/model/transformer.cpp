// The transformer forward pass: one flattened batch of rows from any number of sequences goes
// through every layer together (one matmul per weight for all rows, one K/V store through a slot
// mapping and one attention call per layer), each sequence attending over its own paged K/V.
#include "engine/model/transformer.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "engine/gguf/gguf_file.h"
#include "kernels/ops.h"

namespace engine {

namespace {

// x[n, dim] += bias[dim], when the model has that bias.
void add_bias(std::span<float> x, std::span<const float> bias) {
  if (!bias.empty()) kernels::add_bias(x, bias);
}

}  // namespace

Transformer::Transformer(ModelConfig config, ModelWeights weights, int num_threads)
    : config_(std::move(config)), weights_(std::move(weights)), pool_(num_threads) {
  rope_.style = config_.rope_style;
  rope_.rot_dim = config_.rope_dim;
  rope_.freq_base = config_.rope_freq_base;
  rope_.freq_scale = config_.rope_freq_scale;
  rope_.freq_factors = weights_.rope_freqs.empty() ? nullptr : weights_.rope_freqs.data();
}

std::expected<std::unique_ptr<Transformer>, Error> Transformer::from_gguf(const gguf::GgufFile& file,
                                                                          int num_threads) {
  if (auto threads = kernels::check_num_threads(num_threads); !threads)
    return std::unexpected(Error{threads.error()});
  auto config = read_model_config(file);
  if (!config) return std::unexpected(config.error());
  auto weights = bind_weights(file, *config);
  if (!weights) return std::unexpected(weights.error());
  auto net = std::make_unique<Transformer>(std::move(*config), std::move(*weights), num_threads);
  if (!net->pool_.start_error().empty()) return std::unexpected(Error{net->pool_.start_error()});
  return net;
}

KvCacheShape Transformer::kv_cache_shape(KvDtype dtype, int32_t block_size) const {
  return KvCacheShape{config_.shape.num_layers, config_.shape.num_kv_heads, config_.shape.head_dim,
                      block_size, dtype};
}

void Transformer::plan_attention(const ForwardBatch& batch, int32_t block_size) {
  slots_.resize(batch.positions.size());
  attn_seqs_.clear();
  for (const BatchSeq& seq : batch.seqs) {
    for (int32_t i = 0; i < seq.num_rows; ++i) {
      const auto r = static_cast<size_t>(seq.first_row + i);
      const int32_t pos = batch.positions[r];
      assert(pos / block_size < static_cast<int32_t>(seq.block_table.size()));
      slots_[r] = seq.block_table[static_cast<size_t>(pos / block_size)] * block_size + pos % block_size;
    }
    attn_seqs_.push_back({seq.block_table, seq.first_row, seq.num_rows});
  }
}

void Transformer::forward(const ForwardBatch& batch, PagedKvCache& cache, std::span<float> logits) {
  const ModelShape& s = config_.shape;
  const int64_t n = batch.num_tokens();
  const int64_t m = static_cast<int64_t>(batch.logit_rows.size());
  const int32_t hd = s.head_dim;
  const int64_t embd = s.embedding_dim, q_dim = int64_t{s.num_heads} * hd,
                kv_dim = int64_t{s.num_kv_heads} * hd;
  const int64_t ffn = s.ffn_dim;
  const float eps = config_.rms_norm_eps;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  assert(cache.shape().num_layers == s.num_layers && cache.shape().num_kv_heads == s.num_kv_heads &&
         cache.shape().head_dim == hd);
  assert(static_cast<int64_t>(logits.size()) == m * s.vocab_size);
  if (n == 0) return;
  assert(std::all_of(batch.tokens.begin(), batch.tokens.end(),
                     [&](int32_t t) { return t >= 0 && t < s.vocab_size; }));

  x_.resize(static_cast<size_t>(n * embd));      // [n, embd] residual stream
  h_.resize(static_cast<size_t>(n * embd));      // [n, embd] normalised input of a block
  q_.resize(static_cast<size_t>(n * q_dim));     // [n, num_heads, head_dim]
  k_.resize(static_cast<size_t>(n * kv_dim));    // [n, num_kv_heads, head_dim]
  v_.resize(static_cast<size_t>(n * kv_dim));    // [n, num_kv_heads, head_dim]
  attn_.resize(static_cast<size_t>(n * q_dim));  // [n, num_heads, head_dim]
  proj_.resize(static_cast<size_t>(n * embd));   // [n, embd] a block's output before the residual add
  gate_.resize(static_cast<size_t>(n * ffn));    // [n, ffn]
  up_.resize(static_cast<size_t>(n * ffn));      // [n, ffn]
  last_.resize(static_cast<size_t>(m * embd));   // [m, embd] rows whose logits are wanted
  // slots_[r]: row r's KV slot (block * block_size + offset); attn_seqs_: rows and block tables
  plan_attention(batch, cache.shape().block_size);

  // x = token_embd[tokens]
  kernels::embedding(weights_.token_embd, batch.tokens, x_);

  for (int32_t l = 0; l < s.num_layers; ++l) {
    const LayerWeights& L = weights_.layers[static_cast<size_t>(l)];

    // h = rmsnorm(x) * attn_norm
    kernels::rmsnorm(x_, L.attn_norm, embd, eps, h_);
    // q = h·Wqᵀ + bq, k = h·Wkᵀ + bk, v = h·Wvᵀ + bv (biases only where the model has them)
    const kernels::MatmulTarget qkv[] = {{L.attn_q, q_}, {L.attn_k, k_}, {L.attn_v, v_}};
    kernels::matmul_group(qkv, h_, n, pool_);
    add_bias(q_, L.q_bias);
    add_bias(k_, L.k_bias);
    add_bias(v_, L.v_bias);
    // qwen3: q and k normalised per head over head_dim
    if (config_.qk_norm) {
      kernels::rmsnorm(q_, L.q_norm, hd, eps, q_);
      kernels::rmsnorm(k_, L.k_norm, hd, eps, k_);
    }
    // q, k rotated by each row's position
    kernels::rope(q_, batch.positions, s.num_heads, hd, rope_);
    kernels::rope(k_, batch.positions, s.num_kv_heads, hd, rope_);
    // cache[slot of row r] = (k[r], v[r])
    kernels::store_kv(cache.mutable_layer(l), k_, v_, slots_);
    // attn = softmax(q·Kᵀ / sqrt(head_dim), causal) · V, each sequence over its own positions,
    // every sequence of the batch in one call
    kernels::paged_attention_batch(q_, batch.positions, s.num_heads, cache.layer_view(l), attn_seqs_, scale,
                                   attn_, pool_);
    // x = x + attn·Woᵀ
    kernels::matmul(L.attn_output, attn_, n, proj_, pool_);
    kernels::add(x_, proj_, x_);

    // h = rmsnorm(x) * ffn_norm
    kernels::rmsnorm(x_, L.ffn_norm, embd, eps, h_);
    // gate = h·Wgᵀ, up = h·Wuᵀ
    const kernels::MatmulTarget gate_up[] = {{L.ffn_gate, gate_}, {L.ffn_up, up_}};
    kernels::matmul_group(gate_up, h_, n, pool_);
    // gate = silu(gate) * up
    kernels::swiglu(gate_, up_, gate_);
    // x = x + gate·Wdᵀ
    kernels::matmul(L.ffn_down, gate_, n, proj_, pool_);
    kernels::add(x_, proj_, x_);
  }

  // last = x[logit_rows]
  for (int64_t i = 0; i < m; ++i) {
    const int64_t r = batch.logit_rows[static_cast<size_t>(i)];
    assert(r >= 0 && r < n);
    std::copy_n(x_.begin() + r * embd, embd, last_.begin() + i * embd);
  }
  // last = rmsnorm(last) * output_norm
  kernels::rmsnorm(last_, weights_.output_norm, embd, eps, last_);
  // logits = last·W_outᵀ (the logits span is [m, vocab])
  kernels::matmul(weights_.output, last_, m, logits, pool_);
}

}  // namespace engine
