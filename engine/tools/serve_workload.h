// A synthetic agent workload for `arena bench serve`: N agents each ask once per tick; every
// prompt starts with a shared system prompt of S tokens, then the agent's own conversation.
// At tick 0 an agent's prompt is system + U unique tokens; at tick t+1 it is its tick-t prompt,
// its tick-t answer and U new tokens (as an agent's conversation grows). Each answer is G
// greedy tokens (end-of-generation ignored, so every mode does the same work). A tick submits
// all N requests at once and ends when all have answered.
// ServeConversations generates the prompts (the same token ids for every run with one seed,
// whatever the answers); ServeWorkloadRun runs them on an Engine through the Engine API, and
// arena/cli/bench_serve_http runs them against an OpenAI-compatible server.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/api.h"

namespace engine {

struct ServeWorkload {
  int32_t num_agents = 32;
  int32_t system_tokens = 256;
  int32_t prompt_tokens = 64;  // unique tokens added per agent per tick
  int32_t gen_tokens = 8;
  int32_t ticks = 3;
  double deadline_seconds = 0;  // each request's deadline after its submission; 0 = none
  uint64_t seed = 1;
};

// What one run of the workload measured.
struct ServeRunStats {
  double seconds = 0;
  int64_t num_requests = 0;
  int64_t prompt_tokens = 0;  // prompt tokens submitted (cached or not)
  int64_t generated_tokens = 0;
  double requests_per_second = 0;
  double prompt_tokens_per_second = 0;
  double generated_tokens_per_second = 0;
  double ttft_p50 = 0, ttft_p99 = 0;    // seconds, exact over all requests
  double queue_p50 = 0, queue_p99 = 0;  // seconds
  double prefix_hit_rate = 0;
  int32_t kv_blocks_peak = 0;
  int32_t kv_blocks_total = 0;
  double kv_waste = 0;           // fraction of allocated KV slots holding no token, over time
  double kv_waste_per_step = 0;  // the same, averaged over steps (see MetricsSnapshot)
  int64_t preemptions = 0;
  int64_t deadline_misses = 0;
  int64_t failed = 0;  // requests that did not finish with FinishReason::Length (or G tokens)
  // False over HTTP: queue times, KV blocks and waste, preemptions and deadline misses are the
  // server's own and unknown to the client.
  bool engine_side = true;
  bool prefix_hit_known = true;  // false when the server reports no cached prompt tokens
};

// KV tokens the workload needs when every agent's last prompt and answer are resident at once.
int64_t serve_workload_kv_tokens(const ServeWorkload& workload);
// Context one agent needs: its last prompt plus its last answer (S + T * (U + G)).
int64_t serve_workload_context_tokens(const ServeWorkload& workload);
// Why the workload cannot run on a model with `context` tokens (0: unknown), or nullopt.
std::optional<std::string> serve_workload_context_error(const ServeWorkload& workload, int64_t context);
// The q-quantile of `values` (nearest rank; 0 when empty).
double serve_quantile(std::vector<double> values, double q);

// Every agent's conversation, grown a tick at a time. The random tokens come from one generator
// seeded with workload.seed in a fixed order, so two instances with the same seed, vocabulary
// and workload give the same token ids whatever answers are appended.
class ServeConversations {
 public:
  // Draws ids in [0, vocab) that are neither control nor end-of-generation tokens of `tokenizer`
  // (which must outlive this); makes the shared system prompt.
  ServeConversations(const Tokenizer& tokenizer, int32_t vocab, const ServeWorkload& workload);

  // Appends U new random tokens to every agent's conversation; returns the tick's prompts.
  const std::vector<std::vector<TokenId>>& next_tick();
  // Appends agent `agent`'s answer to its conversation (before the next tick's tokens).
  void append_answer(size_t agent, std::span<const TokenId> answer);
  // Every agent's conversation as it stands.
  const std::vector<std::vector<TokenId>>& prompts() const { return conversations_; }
  const ServeWorkload& workload() const { return workload_; }

 private:
  // Appends `n` random ordinary-text token ids (no control or end-of-generation tokens).
  void append_random(std::vector<TokenId>& out, int32_t n);

  const Tokenizer& tokenizer_;
  int32_t vocab_;
  std::mt19937_64 rng_;
  ServeWorkload workload_;
  std::vector<std::vector<TokenId>> conversations_;
};

// One run of the workload on its own fresh Engine, a tick at a time, so that several runs (one
// per mode) can take turns and a machine whose speed drifts slows them all alike.
class ServeWorkloadRun {
 public:
  // An error when the engine cannot be made.
  static std::expected<std::unique_ptr<ServeWorkloadRun>, Error> create(LanguageModel& model,
                                                                        const Tokenizer& tokenizer,
                                                                        const EngineConfig& config,
                                                                        const ServeWorkload& workload);
  // The same on an engine of `model` (LoadedModel::create_engine).
  static std::expected<std::unique_ptr<ServeWorkloadRun>, Error> create(LoadedModel& model,
                                                                        const EngineConfig& config,
                                                                        const ServeWorkload& workload);

  // Runs the next tick: submits every agent's request and waits for all answers. Returns the
  // tick's seconds, or an error when a request is rejected.
  std::expected<double, Error> run_tick();
  // What the ticks run so far measured; `seconds` counts only the time inside run_tick.
  ServeRunStats stats() const;

 private:
  ServeWorkloadRun(std::unique_ptr<Engine> engine, const Tokenizer& tokenizer, int32_t vocab,
                   const ServeWorkload& workload);

  std::unique_ptr<Engine> engine_;
  ServeConversations conversations_;
  ServeWorkload workload_;
  ServeRunStats totals_;
  std::vector<double> ttft_, queue_;
};

}  // namespace engine
