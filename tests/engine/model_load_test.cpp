// Loading models: hyper-parameters read from GGUF metadata, and every way a file can be wrong
// (unsupported architecture, missing key, missing tensor, wrong shape, wrong or unsupported type,
// unsupported rope scaling) reported as an Error naming the problem, never a crash; and a
// repacked model, whose file pages are released, computing what the file layout computes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/model.h"
#include "engine/model/model_config.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "engine/tools/eval_cases.h"
#include "engine/tools/forward_bench.h"
#include "engine/tools/serve_workload.h"
#include "kernels/cpu/cpu_ops.h"
#include "tests/common/testdata.h"
#include "tests/engine/model_test_files.h"

using engine::synth::Arch;

namespace {

// The error of loading the transformer in `path` (which must fail).
std::string load_error(const std::string& path) {
  auto file = engine::gguf::GgufFile::open(path);
  REQUIRE(file.has_value());
  auto model = engine::Transformer::from_gguf(*file, 1);
  REQUIRE_FALSE(model.has_value());
  return model.error().message;
}

}  // namespace

TEST_CASE("Model config of the llama and qwen2 test models", "[engine]") {
  ARENA_REQUIRE_TESTDATA(llama_path, "models/llama-spm-gqa-q4_k_m.gguf");
  ARENA_REQUIRE_TESTDATA(qwen_path, "models/qwen2-bpe-tied-f32.gguf");
  auto llama = engine::gguf::GgufFile::open(llama_path.string());
  REQUIRE(llama.has_value());
  auto c = engine::read_model_config(*llama);
  REQUIRE(c.has_value());
  CHECK(c->shape.arch == "llama");
  CHECK(c->shape.num_layers == 2);
  CHECK(c->shape.embedding_dim == 256);
  CHECK(c->shape.num_heads == 4);
  CHECK(c->shape.num_kv_heads == 1);
  CHECK(c->shape.head_dim == 64);
  CHECK(c->shape.ffn_dim == 512);
  CHECK(c->shape.vocab_size == 4096);
  CHECK(c->shape.context_length == 2048);
  CHECK(c->rope_style == kernels::RopeStyle::Normal);
  CHECK(c->rope_dim == 64);
  CHECK(c->rope_freq_base == 10000.0f);
  CHECK(c->rms_norm_eps == Approx(1e-5));
  CHECK_FALSE(c->qk_norm);

  auto qwen = engine::gguf::GgufFile::open(qwen_path.string());
  REQUIRE(qwen.has_value());
  c = engine::read_model_config(*qwen);
  REQUIRE(c.has_value());
  CHECK(c->shape.arch == "qwen2");
  CHECK(c->shape.head_dim == 128);
  CHECK(c->shape.vocab_size == 2048);
  CHECK(c->rope_style == kernels::RopeStyle::Neox);
  CHECK(c->rope_freq_base == 1e6f);
  auto weights = engine::bind_weights(*qwen, *c);
  REQUIRE(weights.has_value());
  // Tied output: the output projection is the token embedding; qwen2 has q/k/v biases.
  CHECK(weights->output.data == weights->token_embd.data);
  CHECK(weights->layers[0].q_bias.size() == 256);
  CHECK(weights->layers[1].k_bias.size() == 128);
}

TEST_CASE("Model::load gives the network, its shape and the tokenizer", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto model = engine::Model::load(path.string(), 1);
  REQUIRE(model.has_value());
  CHECK((*model)->shape().num_layers == 2);
  CHECK((*model)->network().shape().vocab_size == 4096);
  CHECK((*model)->tokenizer().vocab_size() == 4096);
  CHECK((*model)->file().path() == path.string());
  CHECK(engine::Model::load("/nonexistent/model.gguf").error().message.find("cannot open") !=
        std::string::npos);
}

TEST_CASE("A qwen3 model binds its per-head q/k norms", "[engine]") {
  const auto path = engine::test::synth_tiny("qwen3", Arch::Qwen3);
  auto file = engine::gguf::GgufFile::open(path);
  REQUIRE(file.has_value());
  auto c = engine::read_model_config(*file);
  REQUIRE(c.has_value());
  CHECK(c->qk_norm);
  CHECK(c->rope_style == kernels::RopeStyle::Neox);
  auto w = engine::bind_weights(*file, *c);
  REQUIRE(w.has_value());
  CHECK(w->layers[0].q_norm.size() == 64);
  CHECK(w->layers[1].k_norm.size() == 64);
  CHECK(w->layers[0].q_bias.empty());
}

TEST_CASE("Bad models are rejected with an error naming the problem", "[engine]") {
  using engine::test::TensorData;
  const auto good = engine::test::synth_tiny("good_llama", Arch::Llama);
  auto contains = [](const std::string& message, const std::string& part) {
    INFO(message);
    CHECK(message.find(part) != std::string::npos);
  };

  SECTION("unsupported architecture") {
    const auto path = engine::test::rewrite_gguf(
        good, "bad_arch", [](auto& w) { w.set_string("general.architecture", "gpt2"); }, {});
    contains(load_error(path), "architecture 'gpt2' is not supported");
  }
  SECTION("missing metadata key") {
    const auto path =
        engine::test::rewrite_gguf(good, "bad_key", [](auto& w) { w.remove("llama.block_count"); }, {});
    contains(load_error(path), "'llama.block_count'");
  }
  SECTION("heads not a multiple of KV heads") {
    const auto path = engine::test::rewrite_gguf(
        good, "bad_heads", [](auto& w) { w.set_u32("llama.attention.head_count_kv", 3); }, {});
    contains(load_error(path), "not a multiple of head_count_kv 3");
  }
  SECTION("rope dimension out of range") {
    // Found by model_config_fuzzer: a rope.dimension_count above 2^30 (or 0) was read as 0 and
    // reached the rope kernel (tests/data/fuzz/model-config-rope-dim-huge.gguf).
    for (const uint32_t dim : {0u, (1u << 30) + 16}) {
      const auto path = engine::test::rewrite_gguf(
          good, "bad_rope_dim", [&](auto& w) { w.set_u32("llama.rope.dimension_count", dim); }, {});
      contains(load_error(path),
               "invalid metadata key 'llama.rope.dimension_count' = " + std::to_string(dim));
    }
    const auto odd = engine::test::rewrite_gguf(
        good, "odd_rope_dim", [](auto& w) { w.set_u32("llama.rope.dimension_count", 7); }, {});
    contains(load_error(odd), "rope.dimension_count 7 must be even and at most the head size 64");
    const auto found = arena::test::fuzz_data_dir() / "model-config-rope-dim-huge.gguf";
    contains(load_error(found.string()), "invalid metadata key 'llama.rope.dimension_count'");
  }
  SECTION("every hyperparameter the forward pass uses is checked, naming its key and value") {
    struct Bad {
      const char* key;
      double value;  // written as u32 for the integer keys, f32 for the others
      bool real;
      const char* expected;
    };
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<Bad> cases = {
        {"block_count", 0, false, "'llama.block_count' = 0: expected an integer in [1, 1024]"},
        {"block_count", 5000, false, "'llama.block_count' = 5000"},
        {"embedding_length", 0, false, "'llama.embedding_length' = 0"},
        {"embedding_length", 1 << 20, false, "'llama.embedding_length' = 1048576"},
        {"attention.head_count", 0, false, "'llama.attention.head_count' = 0"},
        {"attention.head_count_kv", 0, false, "'llama.attention.head_count_kv' = 0"},
        {"attention.key_length", 0, false, "'llama.attention.key_length' = 0"},
        {"attention.key_length", 1 << 20, false, "'llama.attention.key_length' = 1048576"},
        {"attention.value_length", 0, false, "'llama.attention.value_length' = 0"},
        {"feed_forward_length", 0, false, "'llama.feed_forward_length' = 0"},
        {"context_length", 0, false, "'llama.context_length' = 0"},
        {"context_length", 4e9, false, "'llama.context_length' = 4000000000"},
        {"attention.layer_norm_rms_epsilon", 0, true,
         "'llama.attention.layer_norm_rms_epsilon' = 0: expected"},
        {"attention.layer_norm_rms_epsilon", -0.5, true, "'llama.attention.layer_norm_rms_epsilon' = -0.5"},
        {"attention.layer_norm_rms_epsilon", nan, true, "'llama.attention.layer_norm_rms_epsilon' = nan"},
        {"attention.layer_norm_rms_epsilon", 3, true, "'llama.attention.layer_norm_rms_epsilon' = 3"},
        {"rope.freq_base", inf, true, "'llama.rope.freq_base' = inf"},
        {"rope.freq_base", 0, true, "'llama.rope.freq_base' = 0"},
        {"rope.freq_base", nan, true, "'llama.rope.freq_base' = nan"},
        {"rope.scaling.factor", -2, true, "'llama.rope.scaling.factor' = -2"},
        {"rope.scaling.factor", nan, true, "'llama.rope.scaling.factor' = nan"},
        {"rope.scale_linear", 1e9, true, "'llama.rope.scale_linear' = 1e+09"},
    };
    for (const auto& bad : cases) {
      const auto path = engine::test::rewrite_gguf(good, "bad_hparam",
                                                   [&](auto& w) {
                                                     const std::string key = std::string("llama.") + bad.key;
                                                     if (bad.real)
                                                       w.set_f32(key, static_cast<float>(bad.value));
                                                     else
                                                       w.set_u32(key, static_cast<uint32_t>(bad.value));
                                                   },
                                                   {});
      contains(load_error(path), std::string("invalid metadata key ") + bad.expected);
    }
    // A head count that does not divide the embedding (no key_length to say the head size).
    const auto uneven = engine::test::rewrite_gguf(
        good, "uneven_heads", [](auto& w) { w.set_u32("llama.attention.head_count", 3); }, {});
    contains(load_error(uneven), "embedding_length 256 is not head_count 3 x a head size");
    // A scaling factor of 0 is "no scaling" (as llama.cpp writes it), not an error.
    const auto zero = engine::test::rewrite_gguf(
        good, "zero_factor", [](auto& w) { w.set_f32("llama.rope.scaling.factor", 0); }, {});
    auto file = engine::gguf::GgufFile::open(zero);
    REQUIRE(file);
    const auto c = engine::read_model_config(*file);
    REQUIRE(c);
    CHECK(c->rope_freq_scale == 1.0f);
  }
  SECTION("bad experts") {
    const auto moe = engine::test::synth_tiny("good_qwen2moe", Arch::Qwen2Moe);
    const auto without = engine::test::rewrite_gguf(moe, "bad_no_experts",
                                                    [](auto& w) { w.remove("qwen2moe.expert_count"); }, {});
    contains(load_error(without),
             "missing metadata key 'qwen2moe.expert_count' (qwen2moe is a mixture of experts)");
    const auto too_many = engine::test::rewrite_gguf(
        moe, "bad_used", [](auto& w) { w.set_u32("qwen2moe.expert_used_count", 9); }, {});
    contains(load_error(too_many),
             "invalid metadata key 'qwen2moe.expert_used_count' = 9: expected an integer in [1, 8]");
    const auto huge = engine::test::rewrite_gguf(
        moe, "bad_count", [](auto& w) { w.set_u32("qwen2moe.expert_count", 100000); }, {});
    contains(load_error(huge), "invalid metadata key 'qwen2moe.expert_count' = 100000");
    const auto in_qwen2 =
        engine::test::rewrite_gguf(engine::test::synth_tiny("good_qwen2", Arch::Qwen2), "bad_qwen2_experts",
                                   [](auto& w) { w.set_u32("qwen2.expert_count", 4); }, {});
    contains(load_error(in_qwen2), "qwen2.expert_count = 4: experts in a qwen2 model are not supported");
    const auto missing =
        engine::test::rewrite_gguf(moe, "bad_missing_experts", {}, [](std::vector<TensorData>& t) {
          std::erase_if(t, [](const TensorData& d) { return d.name == "blk.0.ffn_up_exps.weight"; });
        });
    contains(load_error(missing), "missing tensor 'blk.0.ffn_up_exps.weight' (expected shape [256, 256, 8])");
    const auto shape =
        engine::test::rewrite_gguf(moe, "bad_expert_shape", {}, [](std::vector<TensorData>& t) {
          auto* e = engine::test::find_tensor(t, "blk.1.ffn_down_exps.weight");
          REQUIRE(e);
          e->dims = {256, 512, 4};  // same bytes, 4 experts of twice the rows
        });
    contains(load_error(shape),
             "tensor 'blk.1.ffn_down_exps.weight' has shape [256, 512, 4], expected [256, 256, 8]");
  }
  SECTION("unsupported rope scaling") {
    const auto path = engine::test::rewrite_gguf(
        good, "bad_rope", [](auto& w) { w.set_string("llama.rope.scaling.type", "yarn"); }, {});
    contains(load_error(path), "rope scaling 'yarn' is not supported");
  }
  SECTION("missing tensor") {
    const auto path = engine::test::rewrite_gguf(good, "bad_missing", {}, [](std::vector<TensorData>& t) {
      std::erase_if(t, [](const TensorData& d) { return d.name == "blk.1.ffn_up.weight"; });
    });
    contains(load_error(path), "missing tensor 'blk.1.ffn_up.weight' (expected shape [256, 512])");
  }
  SECTION("wrong shape") {
    const auto path = engine::test::rewrite_gguf(good, "bad_shape", {}, [](std::vector<TensorData>& t) {
      auto* k = engine::test::find_tensor(t, "blk.0.attn_k.weight");
      REQUIRE(k);
      k->dims = {128, 256};  // same bytes, transposed shape
    });
    contains(load_error(path), "tensor 'blk.0.attn_k.weight' has shape [128, 256], expected [256, 128]");
  }
  SECTION("norm weight not F32") {
    const auto path = engine::test::rewrite_gguf(good, "bad_norm", {}, [](std::vector<TensorData>& t) {
      auto* n = engine::test::find_tensor(t, "output_norm.weight");
      REQUIRE(n);
      n->type = kernels::GgmlType::F16;
      n->bytes.resize(n->bytes.size() / 2);
    });
    contains(load_error(path), "tensor 'output_norm.weight' has type f16, expected f32");
  }
  SECTION("unsupported weight type") {
    const auto path = engine::test::rewrite_gguf(good, "bad_type", {}, [](std::vector<TensorData>& t) {
      auto* q = engine::test::find_tensor(t, "blk.0.attn_q.weight");
      REQUIRE(q);
      q->type = kernels::GgmlType::Q3_K;
      q->bytes.resize(kernels::row_bytes(kernels::GgmlType::Q3_K, 256 * 256));
    });
    contains(load_error(path), "tensor 'blk.0.attn_q.weight' has type q3_K, which is not supported");
  }
}

TEST_CASE("A repacked tied model computes what its file layout computes", "[engine]") {
  // Repacking drops the file pages of every repacked matrix, token_embd's too when the output is
  // tied to it: the lookups then read those rows back from the file.
  const auto path =
      engine::test::synth_tiny("repack_tied_q8_0", Arch::Qwen2, engine::synth::SynthDtype::Q8_0, 1, true);
  auto file = engine::gguf::GgufFile::open(path);
  REQUIRE(file.has_value());
  REQUIRE(file->find_tensor("output.weight") == nullptr);
  const std::vector<int32_t> tokens = {5, 77, 300, 5, 1021, 9, 42, 640};
  auto logits = [&](bool repack) {
    if (!repack) kernels::set_repack_layout(false);
    auto model = engine::Transformer::from_gguf(*file, 1);
    kernels::set_repack_layout(true);
    REQUIRE(model.has_value());
    engine::SequenceRunner runner(**model, static_cast<int32_t>(tokens.size()));
    auto out = runner.eval(tokens, true);
    REQUIRE(out.has_value());
    return *out;
  };
  const std::vector<float> repacked = logits(true), plain = logits(false);
  REQUIRE(repacked.size() == plain.size());
  float scale = 0, diff = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    scale = std::max(scale, std::abs(plain[i]));
    diff = std::max(diff, std::abs(repacked[i] - plain[i]));
  }
  INFO("max |logit| " << scale << ", max difference " << diff);
  CHECK(scale > 0);
  CHECK(diff <= 1e-4f * scale);
}

TEST_CASE("Requests longer than the model's context are refused before anything is allocated", "[engine]") {
  // 2^20 tokens on a small-context model once allocated gigabytes and died in std::bad_alloc
  // (issue 25); each entry point now names both numbers instead.
  const auto path = engine::test::synth_tiny("ctx_llama", Arch::Llama);
  auto model = engine::Model::load(path, 1);
  REQUIRE(model);
  const int32_t context = (*model)->network().shape().context_length;
  REQUIRE(context > 0);
  const std::string ctx = std::to_string(context);

  engine::ForwardBenchOptions bench;
  bench.prompt_tokens = 1 << 20;
  bench.gen_tokens = 0;
  bench.repeat = 1;
  const auto refused = engine::run_forward_bench(path, bench, [](std::string_view) {});
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message,
             Catch::Contains("= 1048576 is more than the model's context of " + ctx));
  bench.prompt_tokens = context;  // the whole context, one generated token past it
  bench.gen_tokens = 1;
  CHECK_FALSE(engine::run_forward_bench(path, bench, [](std::string_view) {}));

  const std::vector<int32_t> tokens(static_cast<size_t>(1 << 20), 1);
  const auto logits = engine::run_logits_case((*model)->network(), tokens, 1);
  REQUIRE_FALSE(logits);
  CHECK_THAT(logits.error().message,
             Catch::Contains("need 1048576 positions, more than the model's context of " + ctx));
  const std::vector<int32_t> fits(4, 1);
  CHECK(engine::run_logits_case((*model)->network(), fits, 2));

  engine::ServeWorkload workload;
  workload.system_tokens = context;
  workload.ticks = 1;
  const auto why = engine::serve_workload_context_error(workload, context);
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("more than the model's context of " + ctx));
  workload.system_tokens = 0;
  CHECK_FALSE(engine::serve_workload_context_error(workload, context));
}
