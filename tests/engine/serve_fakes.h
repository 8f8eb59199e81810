// Test doubles for the serving core: a tiny tokenizer (printable ASCII plus a few multi-byte
// pieces such as "e2e4", so several token sequences spell the same string) and a toy language
// model that really keeps per-token K/V in the PagedKvCache through the block table and
// attends over what it reads back, so a wrong block table, a wrong position or a leak between
// sequences changes its logits. Each row depends only on its own sequence: batch-invariant.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/language_model.h"
#include "engine/tokenizer/tokenizer.h"

namespace arena::test {

class FakeTokenizer final : public engine::Tokenizer {
 public:
  static constexpr engine::TokenId kBos = 0, kEos = 1;

  FakeTokenizer() {
    pieces_ = {"<s>", "</s>"};
    for (char c = 32; c < 127; ++c) pieces_.push_back(std::string(1, c));
    for (const char* p :
         {"e2", "e4", "e2e", "e2e4", "Nf", "f3", "Nf3", "4q", "ab", "abc", "the", " the", "ing"})
      pieces_.push_back(p);
  }

  std::vector<engine::TokenId> encode(std::string_view text, bool add_special,
                                      bool parse_special) const override {
    std::vector<engine::TokenId> ids;
    if (add_special) ids.push_back(kBos);
    size_t at = 0;
    while (at < text.size()) {
      engine::TokenId best = -1;
      size_t best_len = 0;
      for (engine::TokenId id = 0; id < vocab_size(); ++id) {
        if (is_control(id) && !parse_special) continue;
        const auto& p = pieces_[static_cast<size_t>(id)];
        if (p.size() > best_len && text.substr(at).starts_with(p)) best = id, best_len = p.size();
      }
      if (best < 0) {  // not printable ASCII: skip the byte
        ++at;
        continue;
      }
      ids.push_back(best);
      at += best_len;
    }
    return ids;
  }
  std::string token_to_piece(engine::TokenId id, bool special) const override {
    if (id < 0 || id >= vocab_size()) return {};
    return is_control(id) && !special ? std::string() : pieces_[static_cast<size_t>(id)];
  }
  std::string decode(std::span<const engine::TokenId> ids, bool special) const override {
    std::string out;
    for (auto id : ids) out += token_to_piece(id, special);
    return out;
  }
  int32_t vocab_size() const override { return static_cast<int32_t>(pieces_.size()); }
  engine::TokenId bos() const override { return kBos; }
  engine::TokenId eos() const override { return kEos; }
  bool is_end_of_generation(engine::TokenId id) const override { return id == kEos; }
  bool is_control(engine::TokenId id) const override { return id == kBos || id == kEos; }
  // The id of an exact piece (for tests), or -1.
  engine::TokenId id_of(std::string_view piece) const {
    auto it = std::ranges::find(pieces_, piece);
    return it == pieces_.end() ? -1 : static_cast<engine::TokenId>(it - pieces_.begin());
  }

 private:
  std::vector<std::string> pieces_;
};

class FakeModel final : public engine::LanguageModel {
 public:
  // vocab >= the FakeTokenizer's 110 tokens; the columns past the tokenizer are never sampled.
  explicit FakeModel(int32_t vocab = 128, int32_t context_length = 4096) {
    shape_.arch = "fake";
    shape_.num_layers = 2;
    shape_.embedding_dim = 32;
    shape_.num_heads = 1;
    shape_.num_kv_heads = 1;
    shape_.head_dim = 32;
    shape_.ffn_dim = 32;
    shape_.vocab_size = vocab;
    shape_.context_length = context_length;
  }

  const engine::ModelShape& shape() const override { return shape_; }

  void forward(const engine::ForwardBatch& batch, engine::PagedKvCache& cache,
               std::span<float> logits) override {
    ++num_forward_calls;
    max_rows_seen = std::max(max_rows_seen, batch.num_tokens());
    const int32_t d = shape_.head_dim, bs = cache.shape().block_size;
    std::vector<float> k(d), v(d), q(d), h(d), kr(d), vr(d);
    // 1. Write every row's K and V at its own block-table slot.
    for (const auto& seq : batch.seqs) {
      for (int32_t r = seq.first_row; r < seq.first_row + seq.num_rows; ++r) {
        const int32_t pos = batch.positions[r];
        for (int32_t l = 0; l < shape_.num_layers; ++l) {
          features(batch.tokens[r], pos, l, 0, k);
          features(batch.tokens[r], pos, l, 1, v);
          cache.write(l, seq.block_table[pos / bs], pos % bs, k, v);
        }
      }
    }
    // 2. Each logit row attends over its sequence's positions [0, pos], read back from the cache.
    for (size_t i = 0; i < batch.logit_rows.size(); ++i) {
      const int32_t row = batch.logit_rows[i];
      const auto& seq = *std::ranges::find_if(batch.seqs, [&](const engine::BatchSeq& s) {
        return row >= s.first_row && row < s.first_row + s.num_rows;
      });
      const int32_t pos = batch.positions[row];
      std::ranges::fill(h, 0.0f);
      for (int32_t l = 0; l < shape_.num_layers; ++l) {
        features(batch.tokens[row], pos, l, 2, q);
        std::vector<float> scores(static_cast<size_t>(pos) + 1);
        float best = -1e30f;
        for (int32_t p = 0; p <= pos; ++p) {
          cache.read_k(l, seq.block_table[p / bs], p % bs, kr);
          float s = 0;
          for (int32_t j = 0; j < d; ++j) s += q[j] * kr[j];
          scores[p] = s * 0.5f;
          best = std::max(best, scores[p]);
        }
        float total = 0;
        for (auto& s : scores) total += (s = std::exp(s - best));
        for (int32_t p = 0; p <= pos; ++p) {
          cache.read_v(l, seq.block_table[p / bs], p % bs, vr);
          for (int32_t j = 0; j < d; ++j) h[j] += scores[p] / total * vr[j];
        }
      }
      float* out = logits.data() + i * static_cast<size_t>(shape_.vocab_size);
      for (int32_t t = 0; t < shape_.vocab_size; ++t) {
        float s = 0;
        for (int32_t j = 0; j < d; ++j) s += h[j] * embed(t, j);
        out[t] = 4.0f * s;
      }
    }
  }

  int num_forward_calls = 0;
  int32_t max_rows_seen = 0;

 private:
  // Deterministic pseudo-random features of (token, position, layer, kind).
  static void features(int32_t token, int32_t pos, int32_t layer, int32_t kind, std::vector<float>& out) {
    for (size_t j = 0; j < out.size(); ++j)
      out[j] = std::sin(0.731f * static_cast<float>(token + 1) * static_cast<float>(j + 1) + 0.113f * pos +
                        1.7f * layer + 2.9f * kind) +
               0.25f * std::cos(0.05f * pos * static_cast<float>(j + 1));
  }
  static float embed(int32_t token, int32_t j) {
    return std::sin(1.37f * static_cast<float>(token + 3) * static_cast<float>(j + 2) + 0.61f * token);
  }

  engine::ModelShape shape_;
};

}  // namespace arena::test
