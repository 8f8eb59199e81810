// Capacity planner at the edges: contexts and agent counts whose KV bytes overflow 64 bits are
// refused with a message (they used to divide by a wrapped 0 or print "KV 0 B"), and large but
// representable ones give exact figures.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tools/capacity_planner.h"
#include "engine/tools/gguf_writer.h"

using namespace engine;

namespace {

// A llama-shaped GGUF with the given KV shape and a 32 x 8 f32 token embedding (no other weights:
// the planner reads only metadata and the tensor table).
gguf::GgufFile planner_model(const std::string& name, uint32_t layers, uint32_t heads, uint32_t kv_heads,
                             uint32_t head_dim) {
  gguf::GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_u32("llama.block_count", layers);
  w.set_u32("llama.embedding_length", heads * 8);
  w.set_u32("llama.attention.head_count", heads);
  w.set_u32("llama.attention.head_count_kv", kv_heads);
  w.set_u32("llama.attention.key_length", head_dim);
  w.set_u32("llama.rope.dimension_count", 2);
  w.set_u32("llama.feed_forward_length", 64);
  w.set_u32("llama.context_length", 4096);
  w.set_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  REQUIRE(w.add_tensor("token_embd.weight", {32, 8}, kernels::GgmlType::F32));
  const auto path = (std::filesystem::temp_directory_path() / ("arena_planner_" + name + ".gguf")).string();
  const std::vector<std::vector<std::byte>> data{std::vector<std::byte>(32 * 8 * 4)};
  REQUIRE(w.write_file(path, data));
  auto file = gguf::GgufFile::open(path);
  std::filesystem::remove(path);
  REQUIRE(file);
  return *file;
}

}  // namespace

TEST_CASE("Planner refuses a context whose KV bytes overflow", "[engine]") {
  const auto file = planner_model("ctx", 32, 32, 8, 128);  // 128 KiB per token at f16
  PlanRequest req;
  req.context = 36028797018963968;  // 2^55 tokens: 2^72 bytes
  req.memory_bytes = uint64_t{8} << 30;
  auto plan = plan_capacity(file, req);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().message.find("does not fit in 64 bits") != std::string::npos);
  req.context = INT64_MAX;  // rounding up to whole blocks must not overflow either
  REQUIRE_FALSE(plan_capacity(file, req));
  req.context = -5;
  REQUIRE_FALSE(plan_capacity(file, req));

  // 2^40 tokens still fit: exact figures, and 0 requests in 8 GiB.
  req.context = int64_t{1} << 40;
  plan = plan_capacity(file, req);
  REQUIRE(plan);
  CHECK(plan->kv_bytes_per_token == 2u * 32 * 8 * 128 * 2);
  CHECK(plan->kv_bytes_per_request == (uint64_t{1} << 40) * plan->kv_bytes_per_token);
  CHECK(plan->max_concurrent_requests == 0);
  CHECK(format_plan(*plan).find("128.00 PiB") != std::string::npos);
}

TEST_CASE("Planner refuses an agent count whose memory overflows", "[engine]") {
  const auto file = planner_model("agents", 32, 32, 8, 128);
  PlanRequest req;
  req.context = int64_t{1} << 40;  // 2^57 bytes per request
  req.num_agents = 1 << 10;        // 2^67 bytes
  auto plan = plan_capacity(file, req);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().message.find("1024 agents") != std::string::npos);
  req.num_agents = 64;  // 2^63 bytes + the weights: fits
  plan = plan_capacity(file, req);
  REQUIRE(plan);
  CHECK(*plan->memory_for_agents == (uint64_t{1} << 63) + plan->weight_bytes);
}

TEST_CASE("Planner refuses a KV shape whose row overflows", "[engine]") {
  const auto file = planner_model("shape", 2, 1 << 16, 1 << 16, 1 << 16);
  PlanRequest req;
  req.context = 16;
  auto plan = plan_capacity(file, req);
  REQUIRE_FALSE(plan);
  // Refused at load now (model_config.cpp checks each header number), before the planner's own
  // check of the KV row ("out of range for a KV cache") is reached.
  CHECK(plan.error().message.find("invalid metadata key 'llama.embedding_length' = 524288") !=
        std::string::npos);
}

TEST_CASE("Every size format_bytes prints reads back", "[engine]") {
  // Found by fuzz/cli_values_fuzzer (tests/data/fuzz/cli-values-pib-size.bin): "45.48 PiB".
  for (uint64_t bytes :
       {uint64_t{51211111111111512}, uint64_t{1} << 50, UINT64_MAX / 3, uint64_t{1023}, uint64_t{1} << 62}) {
    const std::string printed = format_bytes(bytes);
    INFO(printed);
    const auto back = parse_byte_size(printed);
    REQUIRE(back);
    CHECK(std::abs(static_cast<double>(*back) - static_cast<double>(bytes)) <=
          static_cast<double>(bytes) * 0.005);
  }
  CHECK(parse_byte_size("2EiB") == uint64_t{2} << 60);
  CHECK(parse_byte_size("3PB") == uint64_t{3000000000000000});
  CHECK_FALSE(parse_byte_size("16EiB"));  // 2^64 does not fit
}
