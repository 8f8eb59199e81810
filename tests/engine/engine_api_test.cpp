// The engine's public face beyond submit/stream: requests that can never run refused at submit
// with an actionable message, budgets that cannot work refused at create, the parsers that sit
// next to each enum's to_string, error kinds, the build's features, and the batching modes as
// admission policies.
#include <catch2/catch.hpp>

#include "engine/api.h"
#include "engine/core/admission_policy.h"
#include "tests/engine/serve_fakes.h"

using namespace engine;
using arena::test::FakeModel;
using arena::test::FakeTokenizer;

namespace {

EngineConfig blocks_config(int32_t num_blocks) {
  EngineConfig cfg;
  cfg.cache.dtype = KvDtype::F32;
  cfg.cache.block_size = 16;
  cfg.cache.kv_cache_bytes = static_cast<size_t>(num_blocks) * 16 * 512;  // 512 bytes per token
  return cfg;
}

}  // namespace

TEST_CASE("submit refuses a prompt past the model's context, before anything else", "[engine]") {
  FakeTokenizer tok;
  FakeModel model(128, 2048);
  auto engine = Engine::create(model, tok, blocks_config(512));
  REQUIRE(engine);
  GenerateRequest r;
  r.prompt_tokens.assign(4000, 5);
  r.sampling.max_tokens = 2048 - 4000;  // what a caller computing "context - prompt" would send
  const auto e = (*engine)->submit(r);
  REQUIRE_FALSE(e);
  CHECK(e.error().message ==
        "request rejected: prompt of 4000 tokens exceeds the model's context of 2048; shorten it");
  CHECK(e.error().kind == ErrorKind::InvalidArgument);
  r.prompt_tokens.assign(2048, 5);
  r.sampling.max_tokens = 4;
  CHECK((*engine)->submit(r).error().message.find("fills the model's context of 2048") != std::string::npos);
  // A prompt that fits with an answer cut at the context: runs and ends with Length.
  r.prompt_tokens.assign(2040, 5);
  r.sampling.max_tokens = 100;
  r.sampling.ignore_eos = true;
  auto handle = (*engine)->submit(r);
  REQUIRE(handle);
  const GenerateResult result = handle->wait();
  CHECK(result.reason == FinishReason::Length);
  CHECK(result.tokens.size() == 8);
}

TEST_CASE("Engine::create refuses a KV budget that holds no block", "[engine]") {
  FakeTokenizer tok;
  FakeModel model;
  EngineConfig cfg = blocks_config(1);
  cfg.cache.kv_cache_bytes = 16 * 512 - 1;
  const auto engine = Engine::create(model, tok, cfg);
  REQUIRE_FALSE(engine);
  CHECK(engine.error().message.find("holds no block of 8192 bytes") != std::string::npos);
  cfg.cache.kv_cache_bytes = 16 * 512;
  CHECK(Engine::create(model, tok, cfg).has_value());
}

TEST_CASE("each engine enum has a parser beside its to_string", "[engine]") {
  for (KvDtype d : {KvDtype::F32, KvDtype::F16, KvDtype::Q8_0})
    CHECK(parse_kv_dtype(to_string(d)).value() == d);
  CHECK(kv_dtype_names() == std::vector<std::string>{"f32", "f16", "q8_0"});
  const auto bad = parse_kv_dtype("q4_0");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "unknown KV cache dtype 'q4_0' (known: f32, f16, q8_0)");
  for (BatchingMode m : {BatchingMode::Sequential, BatchingMode::Static, BatchingMode::Continuous})
    CHECK(parse_batching_mode(to_string(m)).value() == m);
  CHECK(parse_batching_mode("batched").error().message.find("known: sequential, static, continuous") !=
        std::string::npos);
  CHECK(std::string(to_string(ErrorKind::NotFound)) == "not found");
  CHECK(Error{"x"}.kind == ErrorKind::InvalidArgument);
}

TEST_CASE("build_features names the SIMD level the kernels use", "[engine]") {
  const BuildFeatures f = build_features();
  CHECK((f.simd == "scalar" || f.simd == "avx2" || f.simd == "avx512"));
  if (!f.cuda_compiled) CHECK(f.cuda_devices.empty());
}

TEST_CASE("batching modes are admission policies", "[engine]") {
  SchedulerConfig config;
  config.max_num_seqs = 8;

  config.mode = BatchingMode::Continuous;
  auto continuous = make_admission_policy(config);
  continuous->begin_step(5, 3);
  CHECK(continuous->may_admit());
  CHECK(continuous->displaces());
  CHECK(continuous->max_num_seqs(8) == 8);

  config.mode = BatchingMode::Static;
  auto batch = make_admission_policy(config);
  CHECK_FALSE(batch->displaces());
  batch->begin_step(3, 0);  // nothing running: a batch of the 3 waiting opens
  for (int i = 0; i < 3; ++i) {
    REQUIRE(batch->may_admit());
    batch->on_admit();
  }
  CHECK_FALSE(batch->may_admit());
  batch->begin_step(4, 3);  // the batch still runs: nobody joins
  CHECK_FALSE(batch->may_admit());
  batch->on_preempt();  // a member preempted rejoins its own batch
  CHECK(batch->may_admit());
  batch->begin_step(20, 0);
  int admitted = 0;
  for (; batch->may_admit(); ++admitted) batch->on_admit();
  CHECK(admitted == 8);  // a batch holds max_num_seqs at most

  config.mode = BatchingMode::Sequential;
  auto sequential = make_admission_policy(config);
  CHECK(sequential->max_num_seqs(8) == 1);
  sequential->begin_step(5, 0);
  REQUIRE(sequential->may_admit());
  sequential->on_admit();
  CHECK_FALSE(sequential->may_admit());
}
