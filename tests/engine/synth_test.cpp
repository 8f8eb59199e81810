// Model synthesis: tiny models of every architecture and dtype read back with llama.cpp's keys,
// tensor names, shapes, types and sizes; same seed -> same bytes; weights with the intended
// statistics; llama.cpp's quantizer fallbacks; clear errors; and a built-in vocabulary that is
// run through the engine (the vocabulary: synth_vocab_test.cpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "engine/gguf/gguf_file.h"
#include "engine/model/model.h"
#include "engine/model/sequence_runner.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tools/gguf_writer.h"
#include "engine/tools/synth/byte_level_bpe.h"
#include "engine/tools/synth/synth_vocab.h"
#include "engine/tools/synth/synthesize.h"
#include "tests/common/testdata.h"
#include "tests/engine/synth_test_options.h"

namespace {

using engine::gguf::GgufFile;
using engine::synth::Arch;
using engine::synth::SynthDtype;
using kernels::GgmlType;
namespace synth = engine::synth;
using arena::test::synth_temp_path;
using arena::test::tiny_synth_options;

std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The tensor names llama.cpp loads for `arch` with `layers` blocks.
std::set<std::string> expected_names(Arch arch, int layers, bool tied) {
  std::set<std::string> names{"token_embd.weight", "output_norm.weight"};
  if (!tied) names.insert("output.weight");
  for (int l = 0; l < layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    for (const char* n :
         {"attn_norm.weight", "attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight",
          "ffn_norm.weight", "ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"})
      names.insert(b + n);
    if (arch == Arch::Qwen2)
      for (const char* n : {"attn_q.bias", "attn_k.bias", "attn_v.bias"}) names.insert(b + n);
    if (arch == Arch::Qwen3)
      for (const char* n : {"attn_q_norm.weight", "attn_k_norm.weight"}) names.insert(b + n);
  }
  return names;
}

GgmlType matrix_type(SynthDtype dtype, bool output) {
  switch (dtype) {
    case SynthDtype::F32:
      return GgmlType::F32;
    case SynthDtype::F16:
      return GgmlType::F16;
    case SynthDtype::BF16:
      return GgmlType::BF16;
    case SynthDtype::Q8_0:
      return GgmlType::Q8_0;
    case SynthDtype::Q4_K:
      return output ? GgmlType::Q6_K : GgmlType::Q4_K;
  }
  return GgmlType::F32;
}

std::pair<double, double> mean_std(const engine::gguf::TensorInfo& t) {
  REQUIRE(t.type == GgmlType::F32);
  const size_t n = t.data.size() / 4;
  std::vector<float> v(n);
  std::memcpy(v.data(), t.data.data(), n * 4);
  double sum = 0, sum2 = 0;
  for (float x : v) {
    sum += x;
    sum2 += static_cast<double>(x) * x;
  }
  const double mean = sum / static_cast<double>(n);
  return {mean, std::sqrt(sum2 / static_cast<double>(n) - mean * mean)};
}

}  // namespace

TEST_CASE("Synthesized tiny models carry llama.cpp's keys, tensor names, shapes and types", "[engine]") {
  for (Arch arch : {Arch::Llama, Arch::Qwen2, Arch::Qwen3}) {
    for (SynthDtype dtype :
         {SynthDtype::F32, SynthDtype::F16, SynthDtype::BF16, SynthDtype::Q8_0, SynthDtype::Q4_K}) {
      const std::string a = synth::to_string(arch);
      INFO(a << " " << synth::to_string(dtype));
      auto options = tiny_synth_options(arch, dtype, "tiny.gguf");
      auto result = synth::synthesize(options);
      REQUIRE(result.has_value());
      CHECK(result->notes.empty());
      auto f = GgufFile::open(options.output_path);
      REQUIRE(f.has_value());
      CHECK(f->version() == 3);
      CHECK(f->file_size() == result->file_bytes);
      CHECK(f->get_string("general.architecture") == a);
      CHECK(f->get_string("general.name") == "synth-tiny-" + std::string(synth::to_string(dtype)));
      CHECK(f->get_int("general.alignment") == 32);
      CHECK(f->get_int("general.file_type") == synth::file_type(dtype));
      CHECK(f->get_int("general.quantization_version").has_value() ==
            (dtype == SynthDtype::Q8_0 || dtype == SynthDtype::Q4_K));
      CHECK(f->get_int(a + ".block_count") == 2);
      CHECK(f->get_int(a + ".embedding_length") == 256);
      CHECK(f->get_int(a + ".feed_forward_length") == 512);
      CHECK(f->get_int(a + ".attention.head_count") == 4);
      CHECK(f->get_int(a + ".attention.head_count_kv") == 2);
      CHECK(f->get_int(a + ".context_length") == 2048);
      CHECK(f->get_int(a + ".rope.dimension_count") == 64);
      CHECK(f->get_float(a + ".rope.freq_base") == 10000.0);
      CHECK(f->get_float(a + ".attention.layer_norm_rms_epsilon") == Approx(1e-5));
      CHECK(f->find(a + ".attention.key_length") == nullptr);  // embd / heads: llama.cpp's default
      CHECK(f->get_int(a + ".vocab_size") == 1024);
      CHECK(f->get_string("tokenizer.ggml.model") == "gpt2");
      CHECK(f->get_string_array("tokenizer.ggml.tokens")->size() == 1024);

      std::set<std::string> names;
      for (const auto& t : f->tensors()) names.insert(t.name);
      CHECK(names == expected_names(arch, 2, false));
      CHECK(static_cast<int64_t>(f->tensors().size()) == result->num_tensors);
      int64_t params = 0;
      for (const auto& t : f->tensors()) {
        INFO(t.name);
        params += t.num_elements();
        CHECK(t.data.size() == kernels::row_bytes(t.type, t.dims[0]) * static_cast<size_t>(t.rows()));
        if (t.dims.size() == 1)
          CHECK(t.type == GgmlType::F32);
        else
          CHECK(t.type == matrix_type(dtype, t.name == "output.weight"));
      }
      CHECK(params == result->num_params);
      CHECK(f->find_tensor("token_embd.weight")->dims == std::vector<int64_t>{256, 1024});
      CHECK(f->find_tensor("output.weight")->dims == std::vector<int64_t>{256, 1024});
      CHECK(f->find_tensor("blk.1.attn_q.weight")->dims == std::vector<int64_t>{256, 256});
      CHECK(f->find_tensor("blk.1.attn_k.weight")->dims == std::vector<int64_t>{256, 128});
      CHECK(f->find_tensor("blk.1.attn_output.weight")->dims == std::vector<int64_t>{256, 256});
      CHECK(f->find_tensor("blk.1.ffn_up.weight")->dims == std::vector<int64_t>{256, 512});
      CHECK(f->find_tensor("blk.1.ffn_down.weight")->dims == std::vector<int64_t>{512, 256});
      if (arch == Arch::Qwen2) CHECK(f->find_tensor("blk.0.attn_v.bias")->dims == std::vector<int64_t>{128});
      if (arch == Arch::Qwen3)
        CHECK(f->find_tensor("blk.0.attn_k_norm.weight")->dims == std::vector<int64_t>{64});
      std::filesystem::remove(options.output_path);
    }
  }
}

TEST_CASE("Synthesized mixtures of experts carry llama.cpp's expert keys and stacked tensors", "[engine]") {
  for (Arch arch : {Arch::Llama, Arch::Qwen2Moe, Arch::Qwen3Moe}) {
    const std::string a = synth::to_string(arch);
    INFO(a);
    auto options =
        tiny_synth_options(arch == Arch::Llama ? Arch::Llama : Arch::Qwen2, SynthDtype::Q4_K, "moe.gguf");
    synth::ShapeOverrides o;
    o.arch = arch;
    o.num_experts = 8;
    o.experts_used = 2;
    if (arch != Arch::Llama) o.expert_ffn = 256;
    auto shape = synth::resolve_shape("tiny", o);
    REQUIRE(shape.has_value());
    options.shape = *shape;
    auto result = synth::synthesize(options);
    REQUIRE(result.has_value());
    auto f = GgufFile::open(options.output_path);
    REQUIRE(f.has_value());
    CHECK(f->get_int(a + ".expert_count") == 8);
    CHECK(f->get_int(a + ".expert_used_count") == 2);
    const int64_t width = arch == Arch::Llama ? 512 : 256;
    CHECK(f->get_int(a + ".expert_feed_forward_length") ==
          (arch == Arch::Llama ? std::nullopt : std::optional<int64_t>(256)));
    CHECK(f->get_int(a + ".expert_shared_feed_forward_length") ==
          (arch == Arch::Qwen2Moe ? std::optional<int64_t>(512) : std::nullopt));
    CHECK(f->find_tensor("blk.1.ffn_gate.weight") == nullptr);
    const auto* router = f->find_tensor("blk.1.ffn_gate_inp.weight");
    REQUIRE(router);
    CHECK(router->dims == std::vector<int64_t>{256, 8});
    CHECK(router->type == GgmlType::F32);  // llama.cpp never quantizes a router
    CHECK(f->find_tensor("blk.1.ffn_gate_exps.weight")->dims == std::vector<int64_t>{256, width, 8});
    CHECK(f->find_tensor("blk.1.ffn_up_exps.weight")->type == GgmlType::Q4_K);
    CHECK(f->find_tensor("blk.1.ffn_down_exps.weight")->dims == std::vector<int64_t>{width, 256, 8});
    CHECK((f->find_tensor("blk.0.ffn_gate_inp_shexp.weight") != nullptr) == (arch == Arch::Qwen2Moe));
    if (arch == Arch::Qwen2Moe) {
      CHECK(f->find_tensor("blk.0.ffn_gate_inp_shexp.weight")->dims == std::vector<int64_t>{256});
      CHECK(f->find_tensor("blk.0.ffn_down_shexp.weight")->dims == std::vector<int64_t>{512, 256});
      CHECK(f->find_tensor("blk.0.attn_q.bias") != nullptr);
    }
    CHECK((f->find_tensor("blk.0.attn_q_norm.weight") != nullptr) == (arch == Arch::Qwen3Moe));
    int64_t params = 0;
    for (const auto& t : f->tensors()) params += t.num_elements();
    CHECK(params == result->num_params);
    std::filesystem::remove(options.output_path);
  }

  // The rules, each named.
  auto error = [](synth::ShapeOverrides o) {
    auto s = synth::resolve_shape("tiny", o);
    REQUIRE_FALSE(s.has_value());
    return s.error().message;
  };
  synth::ShapeOverrides o;
  o.arch = Arch::Qwen3Moe;
  CHECK(error(o) == "qwen3moe is a mixture of experts: give --experts N and --experts-used K");
  o.num_experts = 8;
  o.experts_used = 9;
  CHECK(error(o) == "experts used must be in [1, experts = 8] (got 9)");
  o.experts_used = 2;
  o.shared_ffn = 64;
  CHECK(error(o) == "only qwen2moe has a shared expert (--shared-ffn)");
  o.shared_ffn.reset();
  o.arch = Arch::Qwen2;
  CHECK(error(o) == "qwen2 has no experts (llama, qwen2moe and qwen3moe have)");
  o.arch = Arch::Llama;
  o.expert_ffn = 128;
  CHECK(error(o).starts_with("a llama with experts (Mixtral) has experts of the FFN width"));
  o.num_experts = 300;
  o.expert_ffn.reset();
  CHECK(error(o) == "experts must be in [1, 256] (got 300)");
}

TEST_CASE("Synthesis is deterministic in the seed and independent of the thread count", "[engine]") {
  auto a = tiny_synth_options(Arch::Qwen2, SynthDtype::Q4_K, "seed_a.gguf");
  auto b = tiny_synth_options(Arch::Qwen2, SynthDtype::Q4_K, "seed_b.gguf");
  auto c = tiny_synth_options(Arch::Qwen2, SynthDtype::Q4_K, "seed_c.gguf");
  a.num_threads = 1;
  b.num_threads = 3;
  c.seed = 2;
  REQUIRE(synth::synthesize(a));
  REQUIRE(synth::synthesize(b));
  REQUIRE(synth::synthesize(c));
  const auto bytes_a = read_all(a.output_path);
  CHECK(bytes_a == read_all(b.output_path));
  const auto bytes_c = read_all(c.output_path);
  REQUIRE(bytes_a.size() == bytes_c.size());  // same layout, different weights
  CHECK(bytes_a != bytes_c);
  for (const auto& o : {a, b, c}) std::filesystem::remove(o.output_path);
}

TEST_CASE("Synthesized weights have the intended statistics", "[engine]") {
  auto options = tiny_synth_options(Arch::Qwen2, SynthDtype::F32, "stats.gguf");
  REQUIRE(synth::synthesize(options));
  auto f = GgufFile::open(options.output_path);
  REQUIRE(f.has_value());
  auto [mean_q, std_q] = mean_std(*f->find_tensor("blk.0.attn_q.weight"));
  CHECK(std::abs(mean_q) < 0.002);
  CHECK(std_q == Approx(1 / 16.0).epsilon(0.03));  // 1 / sqrt(embd)
  auto [mean_e, std_e] = mean_std(*f->find_tensor("token_embd.weight"));
  CHECK(std::abs(mean_e) < 0.001);
  CHECK(std_e == Approx(0.02).epsilon(0.03));
  auto [mean_d, std_d] = mean_std(*f->find_tensor("blk.1.ffn_down.weight"));
  CHECK(std_d == Approx(1 / std::sqrt(512.0) / 2.0).epsilon(0.03));  // 1 / sqrt(ffn * 2 * layers)
  auto [mean_n, std_n] = mean_std(*f->find_tensor("blk.1.ffn_norm.weight"));
  CHECK(mean_n == 1.0);
  CHECK(std_n == 0.0);
  // Different tensors and rows draw different values.
  const auto* q0 = f->find_tensor("blk.0.attn_q.weight");
  const auto* q1 = f->find_tensor("blk.1.attn_q.weight");
  CHECK(std::memcmp(q0->data.data(), q1->data.data(), 1024) != 0);
  CHECK(std::memcmp(q0->data.data(), q0->data.data() + 1024, 1024) != 0);
  std::filesystem::remove(options.output_path);
}

TEST_CASE("Tied embeddings drop output.weight; q4_k stores token_embd as Q6_K then", "[engine]") {
  auto options = tiny_synth_options(Arch::Llama, SynthDtype::Q4_K, "tied.gguf");
  options.shape.tied_embeddings = true;
  REQUIRE(synth::synthesize(options));
  auto f = GgufFile::open(options.output_path);
  REQUIRE(f.has_value());
  CHECK(f->find_tensor("output.weight") == nullptr);
  CHECK(f->find_tensor("token_embd.weight")->type == GgmlType::Q6_K);
  CHECK(f->find_tensor("blk.0.attn_q.weight")->type == GgmlType::Q4_K);
  std::filesystem::remove(options.output_path);
}

TEST_CASE("q4_k falls back as llama.cpp does for rows that are not a multiple of 256", "[engine]") {
  synth::ShapeOverrides o;
  o.arch = Arch::Qwen3;
  o.num_layers = 1;
  o.embd = 288;
  o.num_heads = 4;  // head_dim 72
  o.num_kv_heads = 2;
  o.ffn = 512;
  o.vocab = 300;
  auto shape = synth::resolve_shape(std::nullopt, o);
  REQUIRE(shape.has_value());
  synth::SynthOptions options;
  options.shape = *shape;
  options.dtype = SynthDtype::Q4_K;
  options.output_path = synth_temp_path("fallback.gguf");
  auto result = synth::synthesize(options);
  REQUIRE(result.has_value());
  CHECK(std::find(
            result->notes.begin(), result->notes.end(),
            "blk.*.attn_q.weight: rows of 288 are not a multiple of 256 (q4_K): stored as q5_0, as llama.cpp "
            "does") != result->notes.end());
  CHECK(
      std::find(
          result->notes.begin(), result->notes.end(),
          "output.weight: rows of 288 are not a multiple of 256 (q6_K): stored as q8_0, as llama.cpp does") !=
      result->notes.end());
  auto f = GgufFile::open(options.output_path);
  REQUIRE(f.has_value());
  CHECK(f->find_tensor("blk.0.attn_q.weight")->type == GgmlType::Q5_0);
  CHECK(f->find_tensor("blk.0.ffn_gate.weight")->type == GgmlType::Q5_0);
  CHECK(f->find_tensor("blk.0.ffn_down.weight")->type == GgmlType::Q4_K);  // rows of 512
  CHECK(f->find_tensor("token_embd.weight")->type == GgmlType::Q5_0);
  CHECK(f->find_tensor("output.weight")->type == GgmlType::Q8_0);
  CHECK(f->get_int("qwen3.rope.dimension_count") == 72);
  std::filesystem::remove(options.output_path);
}

TEST_CASE("Named shapes carry the published hyper-parameters", "[engine]") {
  const auto qwen = synth::resolve_shape("Qwen2.5-0.5B", {});
  REQUIRE(qwen.has_value());
  CHECK(qwen->arch == Arch::Qwen2);
  CHECK(qwen->num_layers == 24);
  CHECK(qwen->embd == 896);
  CHECK(qwen->head_dim == 64);
  CHECK(qwen->vocab == 151936);
  CHECK(qwen->tied_embeddings);
  const auto qwen3 = synth::resolve_shape("qwen3-0.6b", {});
  REQUIRE(qwen3.has_value());
  CHECK(qwen3->q_width() == 2048);  // 16 heads of 128 on a width of 1024
  const auto gemma = synth::resolve_shape("gemma-2-2b", {});
  REQUIRE(gemma.has_value());
  CHECK(gemma->sliding_window == 4096);
  CHECK(gemma->q_width() == 2048);  // 8 heads of 256 on a width of 2304
  const auto gemma3 = synth::resolve_shape("gemma-3-1b", {});
  REQUIRE(gemma3.has_value());
  CHECK(gemma3->arch == Arch::Gemma3);
  CHECK(gemma3->sliding_window == 512);
  CHECK(gemma3->head_dim == 256);
  CHECK(gemma3->tied_embeddings);
  const auto qwen3moe = synth::resolve_shape("qwen3-30b-a3b", {});
  REQUIRE(qwen3moe.has_value());
  CHECK(qwen3moe->num_experts == 128);
  CHECK(qwen3moe->experts_used == 8);
  CHECK(qwen3moe->expert_width() == 768);
  const auto mixtral = synth::resolve_shape("mixtral-8x7b", {});
  REQUIRE(mixtral.has_value());
  CHECK(mixtral->expert_width() == 14336);
  CHECK(synth::resolve_shape("qwen1.5-moe-a2.7b", {})->shared_width() == 5632);
  for (const synth::ModelShape& s : synth::named_shapes()) CHECK_FALSE(s.name.empty());
  const auto llama = synth::resolve_shape("llama-3-8b", {});
  REQUIRE(llama.has_value());
  CHECK(llama->num_kv_heads == 8);
  CHECK(llama->ffn == 14336);
  CHECK(llama->rope_base == 500000.f);
  CHECK_FALSE(llama->tied_embeddings);
  synth::ShapeOverrides o;
  o.num_heads = 16;  // head_dim follows embd / heads unless the shape fixes it
  CHECK(synth::resolve_shape("llama-3.2-1b", o)->head_dim == 128);

  // A key_length is written when heads * head_dim is not the width.
  engine::gguf::GgufWriter w;
  synth::write_model_metadata(*qwen3, SynthDtype::F16, "x", w);
  CHECK(w.find("qwen3.attention.key_length")->as_int() == 128);
  CHECK(w.find("qwen3.attention.value_length")->as_int() == 128);
}

TEST_CASE("Synthesis rejects bad shapes and options with a message naming the rule", "[engine]") {
  auto error = [](const std::optional<std::string>& name, const synth::ShapeOverrides& o) {
    auto s = synth::resolve_shape(name, o);
    REQUIRE_FALSE(s.has_value());
    return s.error().message;
  };
  synth::ShapeOverrides o;
  CHECK(error("gpt-5", o).find("unknown shape 'gpt-5' (known: tiny,") != std::string::npos);
  CHECK(error(std::nullopt, o) ==
        "without --shape, --arch, --layers, --embd, --heads, --ffn must be given (or name a shape: " +
            synth::shape_names() + ")");
  o.num_heads = 3;
  CHECK(error("tiny", o).find("3 heads do not divide the width 256") != std::string::npos);
  o.num_heads = 4;
  o.num_kv_heads = 3;
  CHECK(error("tiny", o) == "kv heads (3) must divide heads (4)");
  o.num_kv_heads.reset();
  o.head_dim = 63;
  CHECK(error("tiny", o).find("head dim 63 must be even") != std::string::npos);
  o.head_dim.reset();
  o.num_layers = 0;
  CHECK(error("tiny", o) == "layers must be positive (got 0)");

  auto options = tiny_synth_options(Arch::Llama, SynthDtype::Q8_0, "bad.gguf");
  options.shape.embd = 200;  // 4 heads of 50
  options.shape.head_dim = 50;
  auto bad = synth::synthesize(options);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find(
            "tensor 'token_embd.weight': row length 200 is not a multiple of 32, which q8_0 "
            "needs") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(options.output_path));
  options = tiny_synth_options(Arch::Llama, SynthDtype::F16, "bad.gguf");
  options.shape.vocab = 100;
  CHECK(synth::check_options(options).error().message.find("too small for the built-in tokenizer") !=
        std::string::npos);
  options.shape.vocab = 0;
  CHECK(synth::check_options(options).error().message == "give --vocab N or --tokenizer VOCAB.gguf");
  options.shape.vocab = 1024;
  options.output_path = "/nonexistent-dir/model.gguf";
  CHECK(synth::synthesize(options).error().message.find("cannot create") != std::string::npos);
}

TEST_CASE("Synthesized tiny models load, tokenize and run through the engine", "[engine]") {
  for (Arch arch : {Arch::Llama, Arch::Qwen2, Arch::Qwen3}) {
    INFO(synth::to_string(arch));
    auto options = tiny_synth_options(arch, SynthDtype::Q8_0, "model.gguf");
    REQUIRE(synth::synthesize(options));
    auto model = engine::Model::load(options.output_path, 1);
    REQUIRE(model.has_value());
    const auto& shape = (*model)->shape();
    CHECK(shape.arch == synth::to_string(arch));
    CHECK(shape.num_layers == 2);
    CHECK(shape.embedding_dim == 256);
    CHECK(shape.head_dim == 64);
    CHECK(shape.vocab_size == 1024);
    const auto& tok = (*model)->tokenizer();
    const auto ids = tok.encode("e2e4 Nf3", false, false);
    CHECK(tok.decode(ids) == "e2e4 Nf3");

    // Random weights scaled for unit-size activations: finite logits of moderate spread.
    engine::SequenceRunner runner((*model)->network(), 64);
    auto logits = runner.eval(ids, false);
    REQUIRE(logits.has_value());
    REQUIRE(logits->size() == 1024);
    double sum = 0, sum2 = 0;
    for (float v : *logits) {
      REQUIRE(std::isfinite(v));
      sum += v;
      sum2 += static_cast<double>(v) * v;
    }
    const double sd = std::sqrt(sum2 / 1024 - (sum / 1024) * (sum / 1024));
    CHECK(sd > 0.2);
    CHECK(sd < 5.0);
    std::filesystem::remove(options.output_path);
  }
}
