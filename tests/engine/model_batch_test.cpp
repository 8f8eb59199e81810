// Batching: several sequences in one ForwardBatch — prefill chunks, a chunk continuing a cached
// prefix and a decode row, with block tables interleaved in one shared cache — give each row the
// same logits as running that sequence alone, bit for bit (every per-row computation is
// independent of the other rows). Also: any KV cache dtype runs, and chunked prefill equals a
// single pass.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "tests/engine/model_test_files.h"

using engine::synth::Arch;
using engine::synth::SynthDtype;

namespace {

struct Seq {
  std::vector<int32_t> tokens;  // the whole sequence
  std::vector<int32_t> blocks;  // its blocks in the shared cache
};

std::vector<int32_t> random_tokens(size_t n, int32_t vocab, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> dist(0, vocab - 1);
  std::vector<int32_t> t(n);
  for (auto& x : t) x = dist(rng);
  return t;
}

// A batch of rows [from, to) of each sequence (all rows want logits).
engine::ForwardBatch make_batch(const std::vector<Seq>& seqs,
                                const std::vector<std::pair<int32_t, int32_t>>& spans) {
  engine::ForwardBatch b;
  for (size_t i = 0; i < seqs.size(); ++i) {
    const auto [from, to] = spans[i];
    if (to <= from) continue;
    b.seqs.push_back({seqs[i].blocks, from, static_cast<int32_t>(b.tokens.size()), to - from, {}});
    for (int32_t p = from; p < to; ++p) {
      b.tokens.push_back(seqs[i].tokens[static_cast<size_t>(p)]);
      b.positions.push_back(p);
    }
  }
  b.logit_rows.resize(b.tokens.size());
  std::iota(b.logit_rows.begin(), b.logit_rows.end(), 0);
  return b;
}

}  // namespace

TEST_CASE("A mixed batch of sequences gives each row its logits from running alone", "[engine]") {
  struct ModelKind {
    const char* name;
    Arch arch;
    SynthDtype dtype;
    int64_t window = 0;   // sliding window (phi3, gemma2)
    int64_t experts = 0;  // a mixture of experts (llama: Mixtral)
  };
  for (const ModelKind& mk : {ModelKind{"batch_llama_q8_0", Arch::Llama, SynthDtype::Q8_0},
                              ModelKind{"batch_qwen2_q4_k", Arch::Qwen2, SynthDtype::Q4_K},
                              ModelKind{"batch_qwen3_f16", Arch::Qwen3, SynthDtype::F16},
                              ModelKind{"batch_phi3_q8_0_window_6", Arch::Phi3, SynthDtype::Q8_0, 6},
                              ModelKind{"batch_gemma2_q4_k_window_6", Arch::Gemma2, SynthDtype::Q4_K, 6},
                              ModelKind{"batch_gemma3_q8_0_window_6", Arch::Gemma3, SynthDtype::Q8_0, 6},
                              ModelKind{"batch_mixtral_q4_k", Arch::Llama, SynthDtype::Q4_K, 0, 8},
                              ModelKind{"batch_qwen2moe_q8_0", Arch::Qwen2Moe, SynthDtype::Q8_0, 0, 8},
                              ModelKind{"batch_qwen3moe_f16", Arch::Qwen3Moe, SynthDtype::F16, 0, 8}}) {
    SECTION(mk.name) {
      const bool tied = mk.arch == Arch::Gemma2 || mk.arch == Arch::Gemma3;  // as every Gemma 2 and 3
      const auto path = engine::test::synth_tiny(mk.name, mk.arch, mk.dtype, 1, tied, mk.window, mk.experts);
      auto file = engine::gguf::GgufFile::open(path);
      REQUIRE(file.has_value());
      auto model = engine::Transformer::from_gguf(*file, 2);
      REQUIRE(model.has_value());
      engine::Transformer& net = **model;
      const int32_t vocab = net.shape().vocab_size;
      std::mt19937 rng(42);

      // Block size 4; sequences own every third block of one cache (interleaved tables).
      const int32_t block_size = 4;
      engine::PagedKvCache cache(net.kv_cache_shape(engine::KvDtype::F32, block_size), 36);
      std::vector<Seq> seqs(3);
      seqs[0].tokens = random_tokens(21, vocab, rng);  // 20 cached, then 1 decode row
      seqs[1].tokens = random_tokens(13, vocab, rng);  // fresh prefill of 13
      seqs[2].tokens = random_tokens(12, vocab, rng);  // 5 cached, then a chunk of 7
      for (int32_t b = 0; b < 36; ++b) seqs[static_cast<size_t>(b % 3)].blocks.push_back(b);
      std::reverse(seqs[1].blocks.begin(), seqs[1].blocks.end());  // any order works

      // Fill the cached prefixes (both in one batch), then run the mixed batch.
      const auto prefix = make_batch(seqs, {{0, 20}, {0, 0}, {0, 5}});
      std::vector<float> ignored(prefix.logit_rows.size() * static_cast<size_t>(vocab));
      net.forward(prefix, cache, ignored);
      const std::vector<std::pair<int32_t, int32_t>> spans = {{20, 21}, {0, 13}, {5, 12}};
      const auto mixed = make_batch(seqs, spans);
      std::vector<float> logits(mixed.logit_rows.size() * static_cast<size_t>(vocab));
      net.forward(mixed, cache, logits);

      // Each sequence alone, all positions in one pass.
      size_t row = 0;
      for (size_t s = 0; s < seqs.size(); ++s) {
        engine::SequenceRunner alone(net, static_cast<int32_t>(seqs[s].tokens.size()));
        auto want = alone.eval(seqs[s].tokens, /*all_logits=*/true);
        REQUIRE(want.has_value());
        for (auto p = static_cast<size_t>(spans[s].first); p < static_cast<size_t>(spans[s].second);
             ++p, ++row) {
          INFO("sequence " << s << " position " << p);
          const float* got = logits.data() + row * static_cast<size_t>(vocab);
          const float* ref = want->data() + p * static_cast<size_t>(vocab);
          REQUIRE(std::equal(got, got + vocab, ref));
        }
      }
      CHECK(row == mixed.logit_rows.size());
    }
  }
}

TEST_CASE("Chunked prefill and every KV cache dtype", "[engine]") {
  const auto path = engine::test::synth_tiny("chunks_llama_q8_0", Arch::Llama, SynthDtype::Q8_0);
  auto file = engine::gguf::GgufFile::open(path);
  REQUIRE(file.has_value());
  auto model = engine::Transformer::from_gguf(*file, 2);
  REQUIRE(model.has_value());
  std::mt19937 rng(7);
  const auto tokens = random_tokens(30, (*model)->shape().vocab_size, rng);

  engine::SequenceRunner whole(**model, 30);
  const auto one_pass = whole.eval(tokens, false);
  REQUIRE(one_pass.has_value());

  // The same 30 tokens in chunks of 1, 7 and 22: identical last logits.
  engine::SequenceRunner chunked(**model, 30);
  REQUIRE(chunked.eval(std::span(tokens).subspan(0, 1), false).has_value());
  REQUIRE(chunked.eval(std::span(tokens).subspan(1, 7), false).has_value());
  const auto last = chunked.eval(std::span(tokens).subspan(8), false);
  REQUIRE(last.has_value());
  CHECK(*last == *one_pass);
  CHECK(chunked.num_tokens() == 30);
  CHECK_FALSE(chunked.eval(tokens, false).has_value());  // no room left

  // F16 and Q8_0 caches round K/V; the logits move a little, the argmax rarely.
  for (auto dtype : {engine::KvDtype::F16, engine::KvDtype::Q8_0}) {
    engine::SequenceRunner runner(**model, 30, dtype);
    const auto got = runner.eval(tokens, false);
    REQUIRE(got.has_value());
    double max_diff = 0, scale = 0;
    for (size_t i = 0; i < got->size(); ++i) {
      max_diff = std::max(max_diff, std::fabs(static_cast<double>((*got)[i]) - (*one_pass)[i]));
      scale = std::max(scale, std::fabs(static_cast<double>((*one_pass)[i])));
    }
    INFO(engine::to_string(dtype) << ": max diff " << max_diff << " of " << scale);
    CHECK(max_diff <= 0.05 * scale);
  }
}
