// Answers in deadline order: with a per-step allowance of prompt tokens (max_prefill_tokens),
// requests submitted together get their first token and finish in deadline order (arrival
// order among equal deadlines) instead of all after one step that prefills every prompt; the
// cap changes no sequence's tokens (batch invariance); and the tokens-per-step histogram.
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <vector>

#include "engine/core/engine_core.h"
#include "tests/engine/serve_fakes.h"
#include "tests/engine/serve_harness.h"

using namespace engine;
using arena::test::FakeCore;

namespace {

struct Timeline {
  std::map<uint64_t, int> first_token_step;  // request -> step of its first output token
  std::map<uint64_t, int> finish_step;       // request -> step it finished in
  std::map<uint64_t, std::vector<TokenId>> tokens;
  int num_steps = 0;
};

// Submits one request per entry of `deadlines_s` (seconds from now; negative = no deadline),
// in that order, ids 1.., each a distinct 20-token prompt answered with 3 tokens, and steps the
// core to the end.
Timeline serve(int32_t max_prefill_tokens, const std::vector<int>& deadlines_s) {
  static int32_t cap;
  cap = max_prefill_tokens;
  FakeCore fake(256, [](EngineConfig& cfg) { cfg.scheduler.max_prefill_tokens = cap; });
  EngineCore& core = fake.core;
  const auto now = Clock::now();
  for (size_t i = 0; i < deadlines_s.size(); ++i) {
    GenerateRequest r;
    for (int t = 0; t < 20; ++t) r.prompt_tokens.push_back(static_cast<TokenId>(2 + (7 * i + 3 * t) % 100));
    r.sampling.max_tokens = 3;
    r.sampling.ignore_eos = true;
    if (deadlines_s[i] >= 0) r.deadline = now + std::chrono::seconds(deadlines_s[i]);
    auto seq = core.make_sequence(SeqId{i + 1}, r, now);
    REQUIRE(seq);
    core.add(std::move(*seq));
  }
  Timeline t;
  while (core.has_work()) {
    REQUIRE(t.num_steps < 10000);
    ++t.num_steps;
    for (auto& out : core.step()) {
      auto& toks = t.tokens[out.id.value];
      if (!out.tokens.empty() && toks.empty()) t.first_token_step[out.id.value] = t.num_steps;
      toks.insert(toks.end(), out.tokens.begin(), out.tokens.end());
      if (out.result) t.finish_step[out.id.value] = t.num_steps;
    }
  }
  const auto& m = core.metrics();
  CHECK(m.iteration_tokens.count == m.num_steps);
  CHECK(m.iteration_tokens.sum == Approx(static_cast<double>(deadlines_s.size() * (20 + 2))));
  return t;
}

// Whether `steps` has the requests `ids` in that order (ties allowed: a step serves several).
bool in_order(const std::map<uint64_t, int>& steps, const std::vector<uint64_t>& ids) {
  for (size_t i = 1; i < ids.size(); ++i)
    if (steps.at(ids[i - 1]) > steps.at(ids[i])) return false;
  return steps.size() == ids.size();
}

}  // namespace

TEST_CASE("Requests submitted together answer and finish in deadline order", "[engine]") {
  // Arrival order 1..6; deadlines latest first, so deadline order is 6, 5, ..., 1.
  const Timeline t = serve(24, {60, 50, 40, 30, 20, 10});
  const std::vector<uint64_t> by_deadline{6, 5, 4, 3, 2, 1};
  CHECK(in_order(t.first_token_step, by_deadline));
  CHECK(in_order(t.finish_step, by_deadline));
  // Strictly earlier: the most urgent answers steps before the least urgent is even prefilled.
  CHECK(t.first_token_step.at(6) < t.first_token_step.at(1));
  CHECK(t.finish_step.at(6) < t.first_token_step.at(1));
}

TEST_CASE("Equal deadlines answer in arrival order; no deadline comes last", "[engine]") {
  const Timeline t = serve(24, {-1, 30, 30, 30, -1, 10});
  const std::vector<uint64_t> expected{6, 2, 3, 4, 1, 5};
  CHECK(in_order(t.first_token_step, expected));
  CHECK(in_order(t.finish_step, expected));
  CHECK(t.first_token_step.at(2) < t.first_token_step.at(4));
  CHECK(t.finish_step.at(4) < t.finish_step.at(5));
}

TEST_CASE("Without the prompt-token cap every prompt lands in the first step", "[engine]") {
  const Timeline t = serve(0, {60, 50, 40, 30, 20, 10});
  for (const auto& [id, step] : t.first_token_step) CHECK(step == 1);
}

TEST_CASE("The prompt-token cap changes no request's tokens", "[engine]") {
  const std::vector<int> deadlines{60, -1, 40, 30, 30, 10, 5};
  const Timeline whole = serve(0, deadlines);
  for (int32_t cap : {1, 5, 24, 64}) {
    INFO("max_prefill_tokens " << cap);
    const Timeline capped = serve(cap, deadlines);
    CHECK(capped.tokens == whole.tokens);
    CHECK(capped.num_steps > whole.num_steps);
  }
}
