// The serving core on the real test models (tiny random-weight GGUFs in shared testdata):
// invariance of tokens and logits (alone, in a batch of 32, after a prefix hit, after
// preemption, any chunk size), constrained decoding always yielding an allowed string, and an
// end-to-end Engine run with prompt text.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/api.h"
#include "engine/core/engine_core.h"
#include "engine/model/model.h"
#include "tests/common/testdata.h"
#include "tests/engine/model_test_files.h"
#include "tests/engine/serve_harness.h"

using namespace engine;

namespace {

std::unique_ptr<Model> load(const std::filesystem::path& path) {
  auto model = Model::load(path.string(), 2);
  REQUIRE(model);
  return std::move(*model);
}

// Ordinary text tokens of the test vocabularies (past the control and byte tokens).
constexpr TokenId kLo = 300, kHi = 2000;

// Logit tolerance, relative to the row's largest logit. The kernels treat every row alike
// whatever the batch (the multi-row dot kernels equal the single-row ones bit for bit), so even
// the quantized models, whose activations are converted to Q8_0 / Q8_K before each matmul (where
// a 1e-7 difference could round to a whole quantization step), agree to float rounding.
constexpr float kTol = 1e-4f;

void check_constrained(Model& model) {
  EngineConfig cfg;
  cfg.cache.dtype = KvDtype::F32;
  EngineCore core(model.network(), model.tokenizer(), cfg, 256);
  const std::vector<std::vector<std::string>> sets{{"e2e3", "e2e4", "e2e4q"},
                                                   {"Nf3", "Nc3", "e4", "e2e4", "O-O", "O-O-O", "a7a8=Q"},
                                                   {"Nf3"},
                                                   {"yes", "no"}};
  const PieceIndex pieces(model.tokenizer(),
                          std::min(model.network().shape().vocab_size, model.tokenizer().vocab_size()));
  std::map<uint64_t, size_t> set_of;
  std::set<uint64_t> tight;  // requests with no token to spare
  uint64_t next = 1;
  for (size_t s = 0; s < sets.size(); ++s) {
    const int32_t fewest = Constraint(*CompletionTrie::build(sets[s])).min_tokens_to_complete(pieces);
    for (int rep = 0; rep < 8; ++rep) {
      GenerateRequest r;
      r.prompt = "The best move in this position is";
      r.allowed_completions = sets[s];
      r.sampling.temperature = rep == 0 ? 0.0f : 1.2f;
      r.sampling.seed = next;
      r.sampling.max_tokens = rep < 6 ? 16 : fewest;
      if (rep >= 6) tight.insert(next);
      core.add(*core.make_sequence(SeqId{next}, r, Clock::now()));
      set_of[next++] = s;
    }
  }
  const auto results = arena::test::run_until_done(core, 500);
  REQUIRE(results.size() == set_of.size());
  for (const auto& [id, r] : results) {
    INFO("request " << id << ": '" << r.text << "' " << r.error);
    // A complete string that a longer one extends ("e2e4", "e2e4q") may end a tight budget.
    CHECK((r.reason == FinishReason::Stop || (tight.contains(id) && r.reason == FinishReason::Length)));
    const auto& set = sets[set_of[id]];
    CHECK(std::ranges::find(set, r.text) != set.end());
  }
}

}  // namespace

TEST_CASE("Serving invariance on the real llama test model", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto model = load(path);
  arena::test::check_invariance(model->network(), model->tokenizer(), KvDtype::F32, kLo, kHi, kTol);
}

TEST_CASE("Serving invariance on the real qwen2 test model", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  auto model = load(path);
  arena::test::check_invariance(model->network(), model->tokenizer(), KvDtype::F32, kLo, kHi, kTol);
}

TEST_CASE("Serving invariance with a sliding window: a prefix hit longer than the window", "[engine]") {
  // phi3, a window of 6 positions: the 28 cached prompt tokens of the hit are far past it.
  const auto path = engine::test::synth_tiny("serve_phi3_window_6", engine::synth::Arch::Phi3,
                                             engine::synth::SynthDtype::Q8_0, 1, false, 6);
  auto model = load(path);
  arena::test::check_invariance(model->network(), model->tokenizer(), KvDtype::F32, kLo, 1000, kTol);
}

TEST_CASE("Serving invariance with experts and with gemma3's interleaved windows", "[engine]") {
  // qwen2moe: each row's experts chosen per row, whatever the batch holds. gemma3: both layers of
  // the tiny shape slide a 6-position window (five of every six do), tied embeddings.
  const auto arch = GENERATE(engine::synth::Arch::Qwen2Moe, engine::synth::Arch::Gemma3);
  const bool gemma3 = arch == engine::synth::Arch::Gemma3;
  const auto path = engine::test::synth_tiny(gemma3 ? "serve_gemma3_window_6" : "serve_qwen2moe", arch,
                                             engine::synth::SynthDtype::Q8_0, 1, gemma3, gemma3 ? 6 : 0);
  auto model = load(path);
  arena::test::check_invariance(model->network(), model->tokenizer(), KvDtype::F32, kLo, 1000, kTol);
}

TEST_CASE("Serving invariance with the sliding layers' K/V in blocks of their own", "[engine]") {
  // gemma2's layer 0 slides a 6-position window, layer 1 sees everything; gemma3's two both slide.
  // The window layers get 80 blocks of 4 positions: a sequence holds the 2 or 3 its window covers,
  // so 32 requests of up to 120 tokens run out of them (preemption), and a prefix hit of 28
  // tokens needs the window blocks of its last 6 positions still cached.
  const auto arch = GENERATE(engine::synth::Arch::Gemma2, engine::synth::Arch::Gemma3);
  INFO(engine::synth::to_string(arch));
  const auto path =
      engine::test::synth_tiny(std::string("serve_window_blocks_") + engine::synth::to_string(arch), arch,
                               engine::synth::SynthDtype::Q8_0, 1, true, 6);
  auto model = load(path);
  arena::test::check_invariance(model->network(), model->tokenizer(), KvDtype::F32, kLo, 1000, kTol, 80);
}

TEST_CASE("Serving invariance on every other test model", "[engine][slow]") {
  for (const char* name : {"llama-spm-gqa-f16.gguf", "llama-spm-gqa-bf16.gguf", "llama-spm-gqa-q6_k.gguf",
                           "llama-spm-gqa-q4_k_m.gguf", "qwen2-bpe-tied-q4_k_m.gguf"}) {
    ARENA_REQUIRE_TESTDATA(path, std::string("models/") + name);
    INFO(name);
    auto model = load(path);
    arena::test::check_invariance(model->network(), model->tokenizer(), KvDtype::F32, kLo, kHi, kTol);
    arena::test::check_invariance(model->network(), model->tokenizer(), KvDtype::F16, kLo, kHi, kTol);
  }
}

TEST_CASE("Constrained decoding yields an allowed string on every test model", "[engine]") {
  for (const char* name : {"llama-spm-gqa-f16.gguf", "llama-spm-gqa-bf16.gguf", "llama-spm-gqa-q8_0.gguf",
                           "llama-spm-gqa-q6_k.gguf", "llama-spm-gqa-q4_k_m.gguf", "qwen2-bpe-tied-f32.gguf",
                           "qwen2-bpe-tied-q4_k_m.gguf"}) {
    ARENA_REQUIRE_TESTDATA(path, std::string("models/") + name);
    INFO(name);
    auto model = load(path);
    check_constrained(*model);
  }
}

TEST_CASE("Engine serves prompt text on a real model end to end", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  auto model = load(path);
  EngineConfig cfg;
  cfg.cache.kv_cache_bytes = size_t{8} << 20;
  auto engine = Engine::create(model->network(), model->tokenizer(), cfg);
  REQUIRE(engine);
  const std::string system =
      "You are a chess player in a tournament. Answer with one legal move in UCI notation and nothing else. ";
  auto submit = [&](int i) {
    GenerateRequest r;
    r.prompt = system + "Move " + std::to_string(i) + ":";
    r.sampling.max_tokens = 6;
    r.sampling.ignore_eos = true;
    return *(*engine)->submit(r);
  };
  std::vector<RequestHandle> handles{submit(0)};
  handles.front().wait();  // its blocks are cached once it has run
  for (int i = 1; i < 8; ++i) handles.push_back(submit(i));
  for (auto& h : handles) {
    const auto r = h.wait();
    CHECK(r.reason == FinishReason::Length);
    CHECK(r.tokens.size() == 6);
    CHECK(r.text == model->tokenizer().decode(r.tokens, false));
    if (h.id().value > 1) CHECK(r.num_cached_prompt_tokens >= 16);
  }
  const auto m = (*engine)->metrics();
  CHECK(m.num_requests_finished == 8);
  CHECK(m.prefix_cache_hits >= 7 * 16);
}
