// The Engine API on its own thread: streaming, final results, stop conditions, cancellation
// mid-prefill and mid-decode, queue-full rejection, deadline ordering, requests that can never
// fit, shutdown, and the metrics snapshot.
#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/api.h"
#include "engine/core/engine_core.h"
#include "tests/engine/serve_fakes.h"
#include "tests/engine/serve_harness.h"

using namespace engine;
using arena::test::FakeCore;
using arena::test::FakeModel;
using arena::test::FakeTokenizer;
using arena::test::run_until_done;

namespace {

EngineConfig small_config() {
  EngineConfig cfg;
  cfg.cache.dtype = KvDtype::F32;
  cfg.cache.block_size = 16;
  cfg.cache.kv_cache_bytes = 64 * 16 * 512;  // 64 blocks of 16 tokens x 512 bytes per token
  return cfg;
}

// A model whose forward() waits at a gate: lets a test hold the engine inside a step.
class GatedModel final : public LanguageModel {
 public:
  const ModelShape& shape() const override { return inner_.shape(); }
  void forward(const ForwardBatch& batch, PagedKvCache& cache, std::span<float> logits) override {
    std::unique_lock lock(mutex_);
    ++entered_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
    inner_.forward(batch, cache, logits);
  }
  void wait_entered(int n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return entered_ >= n; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  FakeModel inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int entered_ = 0;
  bool open_ = false;
};

}  // namespace

TEST_CASE("Engine streams tokens and text, then the result", "[engine]") {
  FakeTokenizer tok;
  FakeModel model;
  auto engine = Engine::create(model, tok, small_config());
  REQUIRE(engine);
  std::atomic<int> callbacks{0};
  GenerateRequest r;
  r.prompt = "Hello there";
  r.sampling.max_tokens = 10;
  r.sampling.ignore_eos = true;
  r.on_chunk = [&](const StreamChunk&) { ++callbacks; };
  auto h = (*engine)->submit(r);
  REQUIRE(h);
  std::vector<TokenId> tokens;
  std::string text;
  while (auto chunk = h->next()) {
    tokens.insert(tokens.end(), chunk->tokens.begin(), chunk->tokens.end());
    text += chunk->text;
  }
  const auto result = h->wait();
  CHECK(result.reason == FinishReason::Length);
  CHECK(result.tokens.size() == 10);
  CHECK(tokens == result.tokens);
  CHECK(text == result.text);
  CHECK(text == tok.decode(result.tokens, false));
  CHECK(result.num_prompt_tokens == static_cast<int32_t>(tok.encode("Hello there", true, true).size()));
  CHECK(result.ttft_seconds > 0);
  CHECK(result.total_seconds >= result.ttft_seconds);
  CHECK(callbacks.load() >= 1);
  const auto m = (*engine)->metrics();
  CHECK(m.generation_tokens == 10);
  CHECK(m.num_requests_finished == 1);
  CHECK(m.time_to_first_token.count == 1);
  CHECK(m.inter_token_latency.count == 9);
  CHECK(m.e2e_latency.count == 1);
  CHECK(m.kv_blocks_total == 64);
}

TEST_CASE("Engine stop strings, stop tokens and end of generation", "[engine]") {
  FakeTokenizer tok;
  FakeModel model;
  auto engine = Engine::create(model, tok, small_config());
  REQUIRE(engine);
  GenerateRequest base;
  base.prompt = "Once upon a time";
  base.sampling.max_tokens = 24;
  base.sampling.ignore_eos = true;
  const auto free_run = (*engine)->submit(base)->wait();
  REQUIRE(free_run.tokens.size() == 24);

  // Stop token: the run ends at its first occurrence.
  auto with_stop_token = base;
  with_stop_token.sampling.stop_token_ids = {free_run.tokens[5]};
  const auto st = (*engine)->submit(with_stop_token)->wait();
  CHECK(st.reason == FinishReason::Stop);
  const auto first = std::ranges::find(free_run.tokens, free_run.tokens[5]) - free_run.tokens.begin();
  CHECK(st.tokens.size() == static_cast<size_t>(first + 1));

  // Stop string: the text ends just before it.
  auto with_stop = base;
  const std::string needle = free_run.text.substr(6, 2);
  with_stop.sampling.stop = {needle};
  const auto ss = (*engine)->submit(with_stop)->wait();
  CHECK(ss.reason == FinishReason::Stop);
  CHECK(ss.text == free_run.text.substr(0, free_run.text.find(needle)));

  // End of generation: make EOS the only allowed token once complete.
  GenerateRequest eos;
  eos.prompt = "x";
  eos.allowed_completions = {"ab", "abc"};
  const auto er = (*engine)->submit(eos)->wait();
  CHECK(er.reason == FinishReason::Stop);
  CHECK((er.text == "ab" || er.text == "abc"));
}

TEST_CASE("Engine rejects invalid and impossible requests at once", "[engine]") {
  FakeTokenizer tok;
  FakeModel model(128, 200);
  auto engine = Engine::create(model, tok, small_config());
  REQUIRE(engine);
  GenerateRequest empty;
  CHECK_FALSE((*engine)->submit(empty));
  GenerateRequest bad_token;
  bad_token.prompt_tokens = {5, 128};
  auto e = (*engine)->submit(bad_token);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("vocabulary") != std::string::npos);
  GenerateRequest bad_p;
  bad_p.prompt = "a";
  bad_p.sampling.top_p = 0;
  CHECK_FALSE((*engine)->submit(bad_p));
  GenerateRequest too_long;
  too_long.prompt_tokens.assign(300, 5);
  e = (*engine)->submit(too_long);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("context") != std::string::npos);
  CHECK((*engine)->metrics().num_requests_rejected == 4);
}

TEST_CASE("Engine rejects a request larger than the whole KV cache", "[engine]") {
  FakeTokenizer tok;
  FakeModel model;
  auto cfg = small_config();
  cfg.cache.kv_cache_bytes = 4 * 16 * 512;  // 4 blocks = 64 tokens
  auto engine = Engine::create(model, tok, cfg);
  REQUIRE(engine);
  GenerateRequest r;
  r.prompt_tokens.assign(40, 7);
  r.sampling.max_tokens = 30;
  auto e = (*engine)->submit(r);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("whole cache holds 64") != std::string::npos);
  r.sampling.max_tokens = 20;
  CHECK((*engine)->submit(r)->wait().reason == FinishReason::Length);
}

TEST_CASE("Engine refuses submissions when the waiting queue is full", "[engine]") {
  FakeTokenizer tok;
  GatedModel model;
  auto cfg = small_config();
  cfg.scheduler.max_num_seqs = 1;
  cfg.scheduler.max_queue = 2;
  auto engine = Engine::create(model, tok, cfg);
  REQUIRE(engine);
  GenerateRequest r;
  r.prompt = "abc";
  r.sampling.max_tokens = 2;
  auto first = (*engine)->submit(r);
  REQUIRE(first);
  model.wait_entered(1);  // the engine is inside the first step
  auto second = (*engine)->submit(r);
  auto third = (*engine)->submit(r);
  REQUIRE(second);
  REQUIRE(third);
  auto fourth = (*engine)->submit(r);
  REQUIRE_FALSE(fourth);
  CHECK(fourth.error().message.find("queue is full") != std::string::npos);
  model.open();
  CHECK(first->wait().reason == FinishReason::Length);
  CHECK(third->wait().reason == FinishReason::Length);
  CHECK((*engine)->submit(r));  // room again
}

TEST_CASE("Engine cancels waiting requests and finishes every request at shutdown", "[engine]") {
  FakeTokenizer tok;
  GatedModel model;
  auto cfg = small_config();
  cfg.scheduler.max_num_seqs = 1;
  auto engine = Engine::create(model, tok, cfg);
  REQUIRE(engine);
  GenerateRequest r;
  r.prompt = "abc";
  r.sampling.max_tokens = 50;
  auto running = (*engine)->submit(r);
  model.wait_entered(1);
  auto waiting = (*engine)->submit(r);
  waiting->cancel();
  model.open();
  const auto w = waiting->wait();
  CHECK(w.reason == FinishReason::Cancelled);
  CHECK(w.tokens.empty());
  auto left = (*engine)->submit(r);
  engine->reset();  // shutdown: whatever is unfinished is cancelled
  CHECK(left->finished());
  CHECK(running->finished());
  CHECK(left->wait().reason != FinishReason::Error);
}

TEST_CASE("EngineCore cancellation mid-prefill and mid-decode frees the blocks", "[engine]") {
  FakeCore fake(32, [](EngineConfig& cfg) {
    cfg.cache.enable_prefix_cache = false;
    cfg.scheduler.max_num_batched_tokens = 16;
  });
  EngineCore& core = fake.core;
  GenerateRequest r;
  r.prompt_tokens.assign(40, 9);
  r.sampling.max_tokens = 20;
  core.add(*core.make_sequence(SeqId{1}, r, Clock::now()));
  core.add(*core.make_sequence(SeqId{2}, r, Clock::now()));
  core.step();  // request 1: 16 of 40 prompt tokens
  CHECK(core.block_pool().num_used() == 1);
  auto out = core.cancel(SeqId{1});
  REQUIRE(out);
  REQUIRE(out->result);
  CHECK(out->result->reason == FinishReason::Cancelled);
  CHECK(out->result->tokens.empty());
  CHECK(core.block_pool().num_used() == 0);
  for (int i = 0; i < 6; ++i) core.step();  // request 2: prefill (3 steps) and decodes
  CHECK(core.block_pool().num_used() == 3);
  out = core.cancel(SeqId{2});
  REQUIRE(out);
  CHECK(out->result->reason == FinishReason::Cancelled);
  CHECK(out->result->tokens.size() == 4);
  CHECK(core.block_pool().num_used() == 0);
  CHECK_FALSE(core.has_work());
  CHECK_FALSE(core.cancel(SeqId{2}));
  CHECK(core.metrics().num_requests_cancelled == 2);
}

TEST_CASE("EngineCore serves earliest deadline first and counts deadline misses", "[engine]") {
  FakeCore fake(64, [](EngineConfig& cfg) { cfg.scheduler.mode = BatchingMode::Sequential; });
  EngineCore& core = fake.core;
  const auto now = Clock::now();
  GenerateRequest r;
  r.prompt = "abc";
  r.sampling.max_tokens = 3;
  r.deadline = now + std::chrono::hours(1);
  core.add(*core.make_sequence(SeqId{1}, r, now));
  r.deadline = now - std::chrono::seconds(1);  // already missed
  core.add(*core.make_sequence(SeqId{2}, r, now));
  r.deadline.reset();
  core.add(*core.make_sequence(SeqId{3}, r, now));
  std::vector<uint64_t> finished;
  while (core.has_work())
    for (auto& out : core.step())
      if (out.result) finished.push_back(out.id.value);
  CHECK(finished == std::vector<uint64_t>{2, 1, 3});
  CHECK(core.metrics().deadline_misses == 1);
}

TEST_CASE("EngineCore prefix cache: a shared system prompt is computed once", "[engine]") {
  FakeCore fake(128);
  EngineCore& core = fake.core;
  std::vector<TokenId> system(64, 0);
  for (size_t i = 0; i < system.size(); ++i) system[i] = static_cast<TokenId>(2 + i % 90);
  GenerateRequest first;
  first.prompt_tokens = system;
  first.prompt_tokens.push_back(50);
  first.sampling.max_tokens = 1;
  core.add(*core.make_sequence(SeqId{1}, first, Clock::now()));
  while (core.has_work()) core.step();
  for (uint64_t id = 2; id <= 5; ++id) {
    GenerateRequest r;
    r.prompt_tokens = system;
    r.prompt_tokens.push_back(static_cast<TokenId>(10 + id));
    r.sampling.max_tokens = 2;
    core.add(*core.make_sequence(SeqId{id}, r, Clock::now()));
  }
  const auto results = run_until_done(core);
  REQUIRE(results.size() == 4);
  for (const auto& [id, res] : results) CHECK(res.num_cached_prompt_tokens == 64);
  const auto& m = core.metrics();
  CHECK(m.prefix_cache_queries == 65 + 4 * 65);
  CHECK(m.prefix_cache_hits == 4 * 64);
}

TEST_CASE("EngineCore KV waste counts the empty slots of each sequence's last block", "[engine]") {
  FakeCore fake(64);
  EngineCore& core = fake.core;
  GenerateRequest r;
  r.prompt_tokens.assign(16, 7);  // exactly one block of 16
  r.sampling.max_tokens = 4;
  r.sampling.ignore_eos = true;
  core.add(*core.make_sequence(SeqId{1}, r, Clock::now()));
  while (core.has_work()) core.step();
  // Steps: the prefill fills block 1 (0 empty); decodes write tokens 17, 18 and 19 into block 2
  // (15, 14 and 13 of its slots empty); the 4th token is sampled but never computed.
  const auto& m = core.metrics();
  REQUIRE(m.num_steps == 4);
  CHECK(m.kv_slots_allocated == 16 + 3 * 32);
  CHECK(m.kv_slots_empty == 15 + 14 + 13);
  CHECK(m.kv_waste_per_step() == Approx(42.0 / 112.0));
  // Over time the same states are weighted by their steps' lengths: between the extremes.
  CHECK(m.kv_waste() > 0.0);
  CHECK(m.kv_waste() <= 15.0 / 32.0);
  CHECK(m.kv_slot_seconds > 0.0);
}
