// The default number of tokens per KV cache block. 8 rather than vLLM's 16: on the agent workload
// (`arena bench serve --agents 32 --system-tokens 256 --prompt-tokens 64 --gen-tokens 8`) the
// decoding sequences' partly filled tail blocks held 5.1% of the cache empty over time at 16 and
// 2.3% at 8, with the same or better requests/s, TTFT and prefix hit rate, and the same forward
// pass speed (docs/benchmarks.md, "KV waste and the block size").
#pragma once

#include <cstdint>

namespace engine {

inline constexpr int32_t kDefaultKvBlockSize = 8;

}  // namespace engine
