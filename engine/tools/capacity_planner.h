// The capacity planner behind `arena plan`: from a GGUF file's metadata alone (no weights are
// loaded), the KV bytes per token (2 x layers x kv_heads x head_dim x bytes per value), the
// weight bytes, the KV bytes of one request at a context length, and how many concurrent
// requests fit in a memory budget (or how much memory K agents need).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/kv_block_size.h"
#include "engine/core/kv_dtype.h"
#include "engine/error.h"
#include "engine/model/model_shape.h"

namespace engine {

namespace gguf {
class GgufFile;
}

struct PlanRequest {
  int64_t context = 0;                   // tokens per request; 0 = the model's trained context
  int32_t num_agents = 0;                // concurrent requests to size memory for; 0 = not asked
  std::optional<uint64_t> memory_bytes;  // memory for weights + KV; unset = not asked
  KvDtype kv_dtype = KvDtype::F16;
  int32_t block_size = kDefaultKvBlockSize;
};

struct CapacityPlan {
  ModelShape shape;
  int32_t num_experts = 0;     // a mixture of experts: experts per layer (0: dense)
  int32_t experts_used = 0;    // experts each token runs through
  int32_t sliding_window = 0;  // positions a sliding layer attends to (0: none)
  int32_t sliding_layers = 0;  // how many of the layers slide
  KvDtype kv_dtype = KvDtype::F16;
  int32_t block_size = kDefaultKvBlockSize;
  int64_t context = 0;
  uint64_t kv_bytes_per_token = 0;
  uint64_t weight_bytes = 0;          // the loaded weights: all tensor data in the file + copies
  uint64_t weight_copy_bytes = 0;     // of which copies (a tied output's repacked copy)
  uint64_t kv_bytes_per_request = 0;  // the context rounded up to whole blocks
  // Blocks of the sliding layers per request: all of them, or where they have their own blocks
  // (beside global layers, a window shorter than the context), those the window covers.
  int64_t window_blocks_per_request = 0;
  std::optional<uint64_t> memory_bytes;
  std::optional<int64_t> max_concurrent_requests;  // when memory_bytes is given
  int32_t num_agents = 0;
  std::optional<uint64_t> memory_for_agents;  // weights + num_agents x KV per request
};

// The plan for the model in `file`, or an error naming the missing metadata or bad request.
std::expected<CapacityPlan, Error> plan_capacity(const gguf::GgufFile& file, const PlanRequest& request);
// The same for the GGUF file at `path` (its metadata and tensor table only; no weights are read).
std::expected<CapacityPlan, Error> plan_capacity(const std::string& path, const PlanRequest& request);

// Human-readable lines describing `plan` (what `arena plan` prints).
std::string format_plan(const CapacityPlan& plan);

// Bytes from "8GiB", "512MiB", "1.5GB", "64k", "1000" (binary KiB ... EiB or K ... E, decimal
// kB ... EB; everything format_bytes prints reads back); an error naming the text otherwise.
std::expected<uint64_t, Error> parse_byte_size(std::string_view text);

// "1.50 GiB", "512.00 MiB", "12.00 KiB", "100 B" (up to EiB).
std::string format_bytes(uint64_t bytes);

}  // namespace engine
