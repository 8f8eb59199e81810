// `arena plan --model M [--context N] [--agents K] [--memory BYTES] [--kv-dtype f16|q8_0|f32]`:
// KV bytes per token, weight bytes, KV per request at that context, how many concurrent
// requests fit in the memory given, and what memory K agents need. Reads only the GGUF
// metadata and tensor table (engine/tools/capacity_planner.h); no weights are loaded.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "arena/cli/command.h"
#include "engine/tools/capacity_planner.h"

namespace arena::cli {

namespace {

struct PlanFlags {
  std::string model;
  int64_t context = 0;
  int32_t agents = 0;
  std::string memory;
  std::string kv_dtype = "f16";
  int32_t block_size = engine::PlanRequest{}.block_size;
};

int run_plan(const PlanFlags& f) {
  engine::PlanRequest req;
  req.context = f.context;
  req.num_agents = f.agents;
  req.block_size = f.block_size;
  req.kv_dtype = engine::parse_kv_dtype(f.kv_dtype).value_or(engine::KvDtype::F16);  // checked by CLI11
  if (!f.memory.empty()) {
    auto bytes = engine::parse_byte_size(f.memory);
    if (!bytes) {
      fmt::print(stderr, "arena plan: error: --memory: {}\n", bytes.error().message);
      return kUsageExitCode;
    }
    req.memory_bytes = *bytes;
  }
  auto plan = engine::plan_capacity(f.model, req);
  if (!plan) {
    fmt::print(stderr, "arena plan: error: {}\n", plan.error().message);
    return 1;
  }
  fmt::print("{}", engine::format_plan(*plan));
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<PlanFlags>();
  auto* cmd = root.add_subcommand(
      "plan", "KV cache and memory plan for a GGUF model: bytes per token, per request, requests that fit");
  cmd->add_option("--model", flags->model, "GGUF model file")->required();
  cmd->add_option("--context", flags->context, "Tokens per request (default: the model's trained context)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--agents", flags->agents, "Concurrent requests to size the memory for")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--memory", flags->memory, "Memory for weights and KV cache, e.g. 8GiB, 512MiB");
  cmd->add_option("--kv-dtype", flags->kv_dtype, "KV cache value type: f16 (default), q8_0 or f32")
      ->check(CLI::IsMember(engine::kv_dtype_names()));
  cmd->add_option("--block-size", flags->block_size, "Tokens per KV block")->check(CLI::Range(1, 4096));
  cmd->callback([flags, &action] { action = [flags] { return run_plan(*flags); }; });
}

}  // namespace arena::cli
