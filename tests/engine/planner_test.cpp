// Capacity planner: KV bytes per token from GGUF metadata, per-request KV at a context, how
// many requests fit in a memory budget, memory for K agents, the repacked copy of a tied
// output, and byte-size parsing.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "engine/gguf/gguf_file.h"
#include "engine/tools/capacity_planner.h"
#include "kernels/cpu/cpu_ops.h"
#include "tests/common/testdata.h"
#include "tests/engine/model_test_files.h"

using namespace engine;

TEST_CASE("parse_byte_size reads binary and decimal units", "[engine]") {
  CHECK(parse_byte_size("8GiB") == uint64_t{8} << 30);
  CHECK(parse_byte_size("512MiB") == uint64_t{512} << 20);
  CHECK(parse_byte_size("512 mib") == uint64_t{512} << 20);
  CHECK(parse_byte_size("64k") == 65536u);
  CHECK(parse_byte_size("1.5GB") == 1500000000u);
  CHECK(parse_byte_size("1000") == 1000u);
  CHECK(parse_byte_size("2G") == uint64_t{2} << 30);
  for (const char* bad : {"", "GiB", "8 parsecs", "-1GiB", "1e99GiB", "1.2.3MB"}) {
    INFO(bad);
    auto r = parse_byte_size(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("not a size") != std::string::npos);
  }
  CHECK(format_bytes(100) == "100 B");
  CHECK(format_bytes(uint64_t{3} << 29) == "1.50 GiB");
}

TEST_CASE("Capacity plan of the llama test model", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto file = gguf::GgufFile::open(path.string());
  REQUIRE(file);
  PlanRequest req;
  req.context = 1000;
  req.memory_bytes = uint64_t{64} << 20;
  req.num_agents = 32;
  auto plan = plan_capacity(*file, req);
  REQUIRE(plan);
  // 2 layers x 1 KV head x 64 dims, f16: 2 x 2 x 1 x 64 x 2 bytes.
  CHECK(plan->kv_bytes_per_token == 512);
  CHECK(plan->kv_bytes_per_request == 125 * 8 * 512);  // 1000 tokens -> 125 blocks of 8
  CHECK(plan->weight_bytes > 0);
  CHECK(plan->weight_bytes < std::filesystem::file_size(path));
  REQUIRE(plan->max_concurrent_requests);
  CHECK(*plan->max_concurrent_requests ==
        static_cast<int64_t>(((uint64_t{64} << 20) - plan->weight_bytes) / plan->kv_bytes_per_request));
  CHECK(plan->memory_for_agents == plan->weight_bytes + 32 * plan->kv_bytes_per_request);
  const auto text = format_plan(*plan);
  CHECK(text.find("512 bytes") != std::string::npos);
  CHECK(text.find("32 agents") != std::string::npos);

  req.kv_dtype = KvDtype::Q8_0;  // 34 bytes per 32 values
  plan = plan_capacity(*file, req);
  REQUIRE(plan);
  CHECK(plan->kv_bytes_per_token == 2 * 2 * 68);

  req = PlanRequest{};  // the model's own context; memory not asked
  plan = plan_capacity(*file, req);
  REQUIRE(plan);
  CHECK(plan->context == plan->shape.context_length);
  CHECK_FALSE(plan->max_concurrent_requests);
  CHECK_FALSE(plan->memory_for_agents);

  req.memory_bytes = 1000;  // smaller than the weights
  plan = plan_capacity(*file, req);
  REQUIRE(plan);
  CHECK(plan->max_concurrent_requests == 0);
  CHECK(format_plan(*plan).find("do not fit") != std::string::npos);
}

TEST_CASE("The plan counts the repacked copy of a tied output", "[engine]") {
  const auto path = test::synth_tiny("plan_tied_q8_0", synth::Arch::Qwen2, synth::SynthDtype::Q8_0, 1, true);
  auto file = gguf::GgufFile::open(path);
  REQUIRE(file.has_value());
  REQUIRE(file->find_tensor("output.weight") == nullptr);
  const auto* embd = file->find_tensor("token_embd.weight");
  REQUIRE(embd != nullptr);
  uint64_t in_file = 0;
  for (const auto& t : file->tensors()) in_file += t.data.size();

  // What bind_weights allocates for the copy: the kernels' repacked size of token_embd, if any.
  const size_t repacked = kernels::repacked_bytes(
      kernels::matrix_view(embd->data.data(), embd->type, embd->dims[1], embd->dims[0]));
  auto plan = plan_capacity(*file, {});
  REQUIRE(plan.has_value());
  CHECK(plan->weight_copy_bytes == (repacked + 63) / 64 * 64);
  CHECK(plan->weight_bytes == in_file + plan->weight_copy_bytes);
  if (repacked > 0) {
    CHECK(repacked >= embd->data.size());
    CHECK(format_plan(*plan).find("for the repacked copy of the tied output") != std::string::npos);
  }

  // Without repacking there is no copy.
  kernels::set_repack_layout(false);
  auto plain = plan_capacity(*file, {});
  kernels::set_repack_layout(true);
  REQUIRE(plain.has_value());
  CHECK(plain->weight_copy_bytes == 0);
  CHECK(plain->weight_bytes == in_file);
}

TEST_CASE("The plan names a mixture's experts and the sliding layers", "[engine]") {
  const auto moe = test::synth_tiny("plan_qwen3moe", synth::Arch::Qwen3Moe, synth::SynthDtype::Q8_0);
  auto file = gguf::GgufFile::open(moe);
  REQUIRE(file.has_value());
  auto plan = plan_capacity(*file, PlanRequest{});
  REQUIRE(plan);
  CHECK(plan->num_experts == 8);
  CHECK(plan->experts_used == 2);
  CHECK(plan->sliding_layers == 0);
  CHECK(format_plan(*plan).find("experts: 8 per layer, 2 per token") != std::string::npos);

  // gemma2: the even layers of 2 slide.
  const auto gemma =
      test::synth_tiny("plan_gemma2", synth::Arch::Gemma2, synth::SynthDtype::Q8_0, 1, true, 6);
  file = gguf::GgufFile::open(gemma);
  REQUIRE(file.has_value());
  plan = plan_capacity(*file, PlanRequest{});
  REQUIRE(plan);
  CHECK(plan->sliding_window == 6);
  CHECK(plan->sliding_layers == 1);
  // Blocks of 8: the window layer keeps 1 + 2 blocks, the global layer 2048 / 8 = 256.
  CHECK(plan->window_blocks_per_request == 3);
  CHECK(plan->kv_bytes_per_request == (256 + 3) * 8 * plan->kv_bytes_per_token / 2);
  CHECK(
      format_plan(*plan).find("sliding window: 6 positions on 1 of 2 layers; they keep only the 3 blocks") !=
      std::string::npos);
}
