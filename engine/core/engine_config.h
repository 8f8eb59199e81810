// Configuration of the serving engine: batching mode and limits, the KV cache budget and
// prefix caching, and an optional log sink (the engine layer has no logging library; the
// arena layer passes one that forwards to spdlog).
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <string_view>

#include "base/enum_names.h"
#include "engine/core/kv_block_size.h"
#include "engine/core/kv_dtype.h"
#include "engine/error.h"

namespace engine {

// How requests are batched (the non-default modes exist for comparison benchmarks).
enum class BatchingMode {
  Sequential,  // one request at a time
  Static,      // a batch is admitted only when the previous batch has finished
  Continuous,  // sequences join and leave between any two steps
};

// Each mode's name: the one table that to_string and parse_batching_mode read.
inline constexpr base::EnumTable<BatchingMode, 3> kBatchingModeNames{
    {{BatchingMode::Sequential, "sequential"},
     {BatchingMode::Static, "static"},
     {BatchingMode::Continuous, "continuous"}}};

// "sequential", "static", "continuous".
const char* to_string(BatchingMode mode);

// The mode named `name` (as to_string writes it), or an error listing the names.
std::expected<BatchingMode, Error> parse_batching_mode(std::string_view name);

struct SchedulerConfig {
  BatchingMode mode = BatchingMode::Continuous;
  int32_t max_num_seqs = 64;  // running sequences at most
  // Token budget of one step (prefill chunks + decodes). Large steps amortize each weight read
  // over more tokens, and a tick's prompts finish prefill in fewer steps, so fewer decodes sit
  // through them (docs/benchmarks.md); a smaller budget shortens the steps decodes wait for.
  int32_t max_num_batched_tokens = 2048;
  // Prompt tokens (prefill and recompute chunks; one-token decodes do not count) one step takes at
  // most, given to the most urgent sequences first. On a CPU a step costs about its token count, so
  // a step that prefills every waiting prompt at once makes each of them wait for all the others'
  // prompts before its first token; short prefill steps let the earliest-deadline requests answer,
  // and decode beside the later ones' prefill, in deadline order. 256 tokens keep a step's fixed
  // cost (one pass over the weights) to a few percent of its time on the CPU kernels; raise it
  // where a step costs little more for more tokens (a GPU). 0 = no cap but max_num_batched_tokens.
  int32_t max_prefill_tokens = 256;
  int32_t max_queue = 1024;  // waiting requests at most; submit fails beyond it
};

struct CacheConfig {
  int32_t block_size = kDefaultKvBlockSize;  // tokens per KV block
  KvDtype dtype = KvDtype::F16;              // F32, F16 or Q8_0 (Q8_0 needs head_dim % 32 == 0)
  // KV memory budget in bytes; 0 = kv_memory_fraction of the machine's available memory.
  size_t kv_cache_bytes = 0;
  double kv_memory_fraction = 0.2;
  bool enable_prefix_cache = true;
};

struct EngineConfig {
  SchedulerConfig scheduler;
  CacheConfig cache;
  // Receives info-level events (preemptions, start-up sizing); called on the engine thread.
  std::function<void(std::string_view)> logger;
};

}  // namespace engine
