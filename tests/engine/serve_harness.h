// Drives an EngineCore step by step for tests: requests arrive in waves (each wave after a
// given number of steps), every request's result and every sampled row's logits are kept.
// Used by the invariance tests on the fake model and on the real test models. Also a core over
// the fake model, and a loop that runs any core to the end.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <vector>

#include "engine/core/engine_core.h"
#include "tests/engine/serve_fakes.h"

namespace arena::test {

// An EngineCore over the fake model and tokenizer: an F32 cache of `num_blocks` blocks and the
// `adjust`ed default configuration.
struct FakeCore {
  FakeTokenizer tok;
  FakeModel model;
  engine::EngineCore core;
  explicit FakeCore(int32_t num_blocks, void (*adjust)(engine::EngineConfig&) = nullptr)
      : core(model, tok, config(adjust), num_blocks) {}

 private:
  static engine::EngineConfig config(void (*adjust)(engine::EngineConfig&)) {
    engine::EngineConfig cfg;
    cfg.cache.dtype = engine::KvDtype::F32;
    cfg.cache.block_size = 16;  // the tests count slots in blocks of 16
    if (adjust) adjust(cfg);
    return cfg;
  }
};

// Steps `core` until it has no work (failing past `max_steps`); every final result by id.
inline std::map<uint64_t, engine::GenerateResult> run_until_done(engine::EngineCore& core,
                                                                 int max_steps = 100000) {
  std::map<uint64_t, engine::GenerateResult> results;
  for (int i = 0; core.has_work(); ++i) {
    REQUIRE(i < max_steps);
    for (auto& out : core.step())
      if (out.result) results[out.id.value] = *out.result;
  }
  return results;
}

struct Observed {
  engine::GenerateResult result;
  std::vector<std::vector<float>> logits;  // [output index] -> logits row that chose that token
};

struct Wave {
  std::vector<engine::GenerateRequest> requests;
  int steps_after = -1;  // steps to run before the next wave; -1 = until nothing is left
};

// Serves the waves on a fresh core; request ids are 1, 2, ... in wave order.
inline std::map<uint64_t, Observed> serve_waves(engine::LanguageModel& model, const engine::Tokenizer& tok,
                                                const engine::EngineConfig& cfg, engine::KvBlocks blocks,
                                                const std::vector<Wave>& waves) {
  engine::EngineCore core(model, tok, cfg, blocks);
  std::map<uint64_t, Observed> seen;
  core.set_logits_observer([&](engine::SeqId id, int32_t index, std::span<const float> logits) {
    auto& rows = seen[id.value].logits;
    REQUIRE(static_cast<int32_t>(rows.size()) >= index);
    rows.resize(static_cast<size_t>(index));  // a recomputed sample replaces nothing: index is new
    rows.emplace_back(logits.begin(), logits.end());
  });
  uint64_t next = 1;
  auto run = [&](int steps) {
    for (int i = 0; (steps < 0 || i < steps) && core.has_work(); ++i) {
      REQUIRE(i < 100000);
      for (auto& out : core.step())
        if (out.result) seen[out.id.value].result = *out.result;
      // The metrics report the sliding layers' own blocks as the pool holds them.
      REQUIRE(core.metrics().kv_window_blocks_used == core.window_pool().num_used());
    }
  };
  for (const auto& wave : waves) {
    for (const auto& r : wave.requests) {
      auto seq = core.make_sequence(engine::SeqId{next++}, r, engine::Clock::now());
      REQUIRE(seq);
      core.add(std::move(*seq));
    }
    run(wave.steps_after);
  }
  run(-1);
  REQUIRE(core.block_pool().num_used() == 0);  // every block came back
  REQUIRE(core.window_pool().num_used() == 0);
  REQUIRE(core.metrics().kv_window_blocks_total == std::max(0, blocks.window_blocks - 1));  // less the zeros
  return seen;
}

// `n` random requests: random prompt lengths and tokens in [lo, hi), some starting with
// `shared`, random sampling settings and lengths.
inline std::vector<engine::GenerateRequest> random_requests(int n, uint64_t seed, engine::TokenId lo,
                                                            engine::TokenId hi,
                                                            const std::vector<engine::TokenId>& shared) {
  std::mt19937_64 rng(seed);
  std::vector<engine::GenerateRequest> out;
  for (int i = 0; i < n; ++i) {
    engine::GenerateRequest r;
    if (rng() % 3 == 0)
      r.prompt_tokens.assign(shared.begin(), shared.begin() + static_cast<long>(rng() % shared.size()));
    const int len = 1 + static_cast<int>(rng() % 50);
    for (int j = 0; j < len; ++j)
      r.prompt_tokens.push_back(lo + static_cast<engine::TokenId>(rng() % (hi - lo)));
    r.sampling.temperature = rng() % 2 ? 0.0f : 0.9f;
    r.sampling.top_k = static_cast<int32_t>(rng() % 3 == 0 ? 20 : 0);
    r.sampling.seed = rng();
    r.sampling.max_tokens = 1 + static_cast<int32_t>(rng() % 24);
    r.sampling.ignore_eos = rng() % 2;
    out.push_back(std::move(r));
  }
  return out;
}

// Same tokens, and logits equal within `tol` (relative to the row's largest magnitude).
inline void check_same_output(const Observed& ref, const Observed& got, float tol) {
  REQUIRE(got.result.reason == ref.result.reason);
  REQUIRE(got.result.tokens == ref.result.tokens);
  REQUIRE(got.logits.size() == ref.logits.size());
  for (size_t i = 0; i < ref.logits.size(); ++i) {
    REQUIRE(got.logits[i].size() == ref.logits[i].size());
    float scale = 1e-6f, worst = 0;
    for (size_t v = 0; v < ref.logits[i].size(); ++v) {
      scale = std::max(scale, std::abs(ref.logits[i][v]));
      worst = std::max(worst, std::abs(ref.logits[i][v] - got.logits[i][v]));
    }
    INFO("output " << i << ": max |diff| " << worst << " vs max |logit| " << scale);
    CHECK(worst <= tol * scale);
  }
}

// The invariance suite (plain blocks, not Catch sections, so every case runs on every call): `target` gives
// the same tokens and logits alone, among 31 random others, after a prefix-cache hit, after being preempted,
// and with any prefill chunk size. With `window_blocks` > 0, the sliding-window layers have that
// many blocks of their own (few enough for them to run short among 32 requests).
inline void check_invariance(engine::LanguageModel& model, const engine::Tokenizer& tok,
                             engine::KvDtype dtype, engine::TokenId lo, engine::TokenId hi, float tol,
                             int32_t window_blocks = 0) {
  const engine::KvBlocks many{512, window_blocks}, few{40, window_blocks};
  engine::EngineConfig cfg;
  cfg.cache.dtype = dtype;
  cfg.cache.block_size = 4;
  std::mt19937_64 rng(5);
  std::vector<engine::TokenId> prompt;
  for (int i = 0; i < 45; ++i) prompt.push_back(lo + static_cast<engine::TokenId>(rng() % (hi - lo)));
  for (float temperature : {0.0f, 0.8f}) {
    INFO("temperature " << temperature);
    engine::GenerateRequest target;
    target.prompt_tokens = prompt;
    target.sampling.temperature = temperature;
    target.sampling.seed = 1234;
    target.sampling.max_tokens = 12;
    target.sampling.ignore_eos = true;

    const auto alone = serve_waves(model, tok, cfg, many, {{{target}}}).at(1);
    REQUIRE(alone.result.tokens.size() == 12);

    {
      INFO("in a batch with 31 random others");
      auto reqs = random_requests(31, 77, lo, hi, prompt);
      reqs.insert(reqs.begin() + 13, target);
      check_same_output(alone, serve_waves(model, tok, cfg, many, {{reqs}}).at(14), tol);
    }
    {
      INFO("after a prefix-cache hit");
      engine::GenerateRequest warm;
      warm.prompt_tokens.assign(prompt.begin(), prompt.begin() + 30);
      warm.sampling.max_tokens = 3;
      const auto got = serve_waves(model, tok, cfg, many, {{{warm}}, {{target}}}).at(2);
      CHECK(got.result.num_cached_prompt_tokens == 28);
      check_same_output(alone, got, tol);
    }
    {
      INFO("after being preempted");
      auto target_last = target;
      target_last.priority = 1;  // the least urgent: the first victim
      auto others = random_requests(31, 99, lo, hi, prompt);
      for (auto& r : others) r.priority = 0;
      const auto got = serve_waves(model, tok, cfg, few, {{{target_last}, 4}, {others}}).at(1);
      CHECK(got.result.num_preemptions >= 1);
      check_same_output(alone, got, tol);
    }
    {
      INFO("with any prefill chunk size");
      for (int32_t budget : {1, 3, 16, 50}) {
        INFO("max_num_batched_tokens " << budget);
        auto chunked = cfg;
        chunked.scheduler.max_num_batched_tokens = budget;
        check_same_output(alone, serve_waves(model, tok, chunked, many, {{{target}}}).at(1), tol);
        if (budget == 1 || budget == 16) continue;  // mixed batches: two budgets suffice
        auto reqs = random_requests(7, 11, lo, hi, prompt);
        reqs.insert(reqs.begin() + 3, target);
        check_same_output(alone, serve_waves(model, tok, chunked, many, {{reqs}}).at(4), tol);
      }
    }
  }
}

}  // namespace arena::test
