// Capacity planning from GGUF metadata, and byte-size parsing and printing.
#include "engine/tools/capacity_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <optional>

#include "engine/core/kv_budget.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/kv_cache.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"

namespace engine {

namespace {

// a * b, or nullopt when it does not fit in 64 bits.
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b, or nullopt when it does not fit in 64 bits.
std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace

std::expected<CapacityPlan, Error> plan_capacity(const std::string& path, const PlanRequest& request) {
  auto file = gguf::GgufFile::open(path);
  if (!file) return std::unexpected(file.error());
  return plan_capacity(*file, request);
}

std::expected<CapacityPlan, Error> plan_capacity(const gguf::GgufFile& file, const PlanRequest& request) {
  auto config = read_model_config(file);
  if (!config) return std::unexpected(config.error());
  CapacityPlan plan;
  plan.shape = config->shape;
  plan.num_experts = config->num_experts;
  plan.experts_used = config->experts_used;
  plan.sliding_window = config->shape.sliding_window;
  plan.sliding_layers = config->shape.num_sliding_layers();
  plan.kv_dtype = request.kv_dtype;
  plan.block_size = request.block_size;
  if (request.block_size < 1)
    return std::unexpected(Error{fmt::format("block size {} must be >= 1", request.block_size)});
  if (request.kv_dtype == KvDtype::Q8_0 && plan.shape.head_dim % 32 != 0)
    return std::unexpected(
        Error{fmt::format("KV dtype q8_0 needs a head dimension divisible by 32; {} has {}", file.path(),
                          plan.shape.head_dim)});
  if (request.context < 0)
    return std::unexpected(Error{fmt::format("context {} must be >= 1 token", request.context)});
  plan.context = request.context > 0 ? request.context : plan.shape.context_length;
  if (plan.context <= 0)
    return std::unexpected(Error{fmt::format("{} states no context length; pass --context", file.path())});
  if (request.num_agents < 0) return std::unexpected(Error{"the number of agents must be >= 0"});

  // The KV row of one token in one layer must fit the cache's 32-bit element count; the metadata
  // values are each at most 2^30, so their product is checked here before anything uses it.
  const auto& s = plan.shape;
  const auto row = checked_mul(static_cast<uint64_t>(s.num_kv_heads), static_cast<uint64_t>(s.head_dim));
  if (s.num_layers <= 0 || s.num_kv_heads <= 0 || s.head_dim <= 0 || !row || *row > INT32_MAX ||
      !checked_mul(*row, 8 * static_cast<uint64_t>(s.num_layers)))
    return std::unexpected(
        Error{fmt::format("{}: {} layers x {} KV heads x {} dimensions is out of range for a KV cache",
                          file.path(), s.num_layers, s.num_kv_heads, s.head_dim)});
  KvCacheShape kv{s.num_layers, s.num_kv_heads, s.head_dim, request.block_size, request.kv_dtype, {}};
  for (int32_t l = 0; l < s.num_layers; ++l) kv.sliding.push_back(s.window_of(l) > 0);
  plan.kv_bytes_per_token = kv.bytes_per_token();
  for (const auto& t : file.tensors()) plan.weight_bytes += t.data.size();  // all inside the file
  plan.weight_copy_bytes = weight_copy_bytes(file);
  plan.weight_bytes += plan.weight_copy_bytes;

  // Whole blocks per request (rounded up without overflowing the context), then their bytes.
  const auto context = static_cast<uint64_t>(plan.context);
  const auto block = static_cast<uint64_t>(request.block_size);
  const uint64_t blocks = context / block + (context % block != 0 ? 1 : 0);
  // Sliding layers beside global ones keep only the blocks their window covers (KvBlocks).
  plan.window_blocks_per_request = static_cast<int64_t>(blocks);
  if (window_blocks_apart(s))
    plan.window_blocks_per_request =
        std::min<int64_t>(plan.window_blocks_per_request, window_blocks_per_sequence(s, request.block_size));
  const uint64_t window_part = plan.sliding_layers > 0 ? kv.bytes_per_token(true) * block : 0;
  const auto block_bytes = checked_mul(kv.bytes_per_token(false), block);
  const auto global = block_bytes ? checked_mul(blocks, *block_bytes) : std::nullopt;
  const auto window = checked_mul(static_cast<uint64_t>(plan.window_blocks_per_request), window_part);
  const auto per_request = global && window ? checked_add(*global, *window) : std::nullopt;
  if (!per_request || *per_request == 0)
    return std::unexpected(Error{fmt::format(
        "context {}: the KV cache of one request ({} blocks of {} tokens x {} bytes per token) does not "
        "fit in 64 bits; use a smaller --context",
        plan.context, blocks, block, plan.kv_bytes_per_token)});
  plan.kv_bytes_per_request = *per_request;

  plan.memory_bytes = request.memory_bytes;
  if (request.memory_bytes) {
    const uint64_t left =
        *request.memory_bytes > plan.weight_bytes ? *request.memory_bytes - plan.weight_bytes : 0;
    plan.max_concurrent_requests = static_cast<int64_t>(left / plan.kv_bytes_per_request);
  }
  plan.num_agents = request.num_agents;
  if (request.num_agents > 0) {
    const auto kv_total = checked_mul(static_cast<uint64_t>(request.num_agents), plan.kv_bytes_per_request);
    const auto total = kv_total ? checked_add(plan.weight_bytes, *kv_total) : std::nullopt;
    if (!total)
      return std::unexpected(Error{fmt::format(
          "{} agents at context {} need more than 2^64 bytes ({} per request); use fewer agents or a "
          "smaller --context",
          request.num_agents, plan.context, format_bytes(plan.kv_bytes_per_request))});
    plan.memory_for_agents = *total;
  }
  return plan;
}

std::string format_plan(const CapacityPlan& p) {
  const auto& s = p.shape;
  const double bytes_per_value =
      static_cast<double>(p.kv_bytes_per_token) / (2.0 * s.num_layers * s.num_kv_heads * s.head_dim);
  std::string out = fmt::format(
      "model: {}, {} layers, {} heads ({} KV) of {}, embedding {}, vocab {}, trained context {}\n", s.arch,
      s.num_layers, s.num_heads, s.num_kv_heads, s.head_dim, s.embedding_dim, s.vocab_size, s.context_length);
  if (p.num_experts > 0)
    out += fmt::format("experts: {} per layer, {} per token (every expert's weights stay loaded)\n",
                       p.num_experts, p.experts_used);
  if (p.sliding_layers > 0 && p.sliding_layers < s.num_layers &&
      p.window_blocks_per_request * p.block_size < p.context)
    out += fmt::format(
        "sliding window: {} positions on {} of {} layers; they keep only the {} blocks the window covers\n",
        p.sliding_window, p.sliding_layers, s.num_layers, p.window_blocks_per_request);
  else if (p.sliding_layers > 0)
    out +=
        fmt::format("sliding window: {} positions on {} of {} layers; their K/V is kept for every position\n",
                    p.sliding_window, p.sliding_layers, s.num_layers);
  out += fmt::format("weights: {}", format_bytes(p.weight_bytes));
  if (p.weight_copy_bytes)
    out += fmt::format(" ({} in the file + {} for the repacked copy of the tied output)",
                       format_bytes(p.weight_bytes - p.weight_copy_bytes), format_bytes(p.weight_copy_bytes));
  out += "\n";
  out += fmt::format("KV per token ({}): {} bytes = 2 x {} layers x {} KV heads x {} x {:g} bytes\n",
                     to_string(p.kv_dtype), p.kv_bytes_per_token, s.num_layers, s.num_kv_heads, s.head_dim,
                     bytes_per_value);
  out += fmt::format("KV per request at context {}: {} (blocks of {} tokens)\n", p.context,
                     format_bytes(p.kv_bytes_per_request), p.block_size);
  if (p.memory_bytes) {
    if (*p.memory_bytes <= p.weight_bytes)
      out += fmt::format("memory {}: the weights alone ({}) do not fit; no request fits\n",
                         format_bytes(*p.memory_bytes), format_bytes(p.weight_bytes));
    else
      out += fmt::format("memory {}: {} concurrent requests at context {} ({} for KV after the weights)\n",
                         format_bytes(*p.memory_bytes), *p.max_concurrent_requests, p.context,
                         format_bytes(*p.memory_bytes - p.weight_bytes));
  }
  if (p.memory_for_agents)
    out += fmt::format("{} agents at context {} need {} (weights {} + KV {}), activations not included\n",
                       p.num_agents, p.context, format_bytes(*p.memory_for_agents),
                       format_bytes(p.weight_bytes), format_bytes(*p.memory_for_agents - p.weight_bytes));
  return out;
}

std::expected<uint64_t, Error> parse_byte_size(std::string_view text) {
  auto bad = [&] {
    return std::unexpected(Error{fmt::format(
        "'{}' is not a size: write a number with an optional unit, e.g. 8GiB, 512MiB, 1.5GB or 1000000",
        text)});
  };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return bad();
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + i, value);
  if (ec != std::errc() || end != text.data() + i) return bad();
  std::string unit;
  for (char c : text.substr(i))
    if (c != ' ') unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  double scale = 0;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "k" || unit == "kib")
    scale = 1024.0;
  else if (unit == "m" || unit == "mib")
    scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tib")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "p" || unit == "pib")
    scale = 1024.0 * 1024 * 1024 * 1024 * 1024;
  else if (unit == "e" || unit == "eib")
    scale = 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024;
  else if (unit == "kb")
    scale = 1e3;
  else if (unit == "mb")
    scale = 1e6;
  else if (unit == "gb")
    scale = 1e9;
  else if (unit == "tb")
    scale = 1e12;
  else if (unit == "pb")
    scale = 1e15;
  else if (unit == "eb")
    scale = 1e18;
  else
    return bad();
  const double bytes = value * scale;
  if (!std::isfinite(bytes) || bytes >= 1.8e19) return bad();
  return static_cast<uint64_t>(std::llround(bytes));
}

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  return fmt::format("{:.2f} {}", v, units[u]);
}

}  // namespace engine
