// The serving core, single-threaded: owns the KV cache, block pool, KvCacheManager, Scheduler,
// ModelRunner and Sampler, and the sequences. One step() = schedule, one forward pass over
// every scheduled sequence, sample, detect stops, report outputs. The Engine (engine/api.h)
// runs it on its loop thread; tests drive it step by step.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/block_pool.h"
#include "engine/core/engine_config.h"
#include "engine/core/kv_budget.h"
#include "engine/core/kv_cache_manager.h"
#include "engine/core/metrics.h"
#include "engine/core/model_runner.h"
#include "engine/core/request.h"
#include "engine/core/scheduler.h"
#include "engine/core/sequence.h"
#include "engine/error.h"
#include "engine/model/kv_cache.h"
#include "engine/model/language_model.h"
#include "engine/sampling/piece_index.h"
#include "engine/sampling/sampler.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

// What one step produced for one request: tokens and text since its last output, and the
// result once it has finished.
struct RequestOutput {
  RequestId id;
  std::vector<TokenId> tokens;
  std::string text;
  std::optional<GenerateResult> result;
};

// How a sequence finished: the reason and, for FinishReason::Error, what went wrong.
struct Finish {
  Finish(FinishReason why, std::string what = {}) : reason(why), error(std::move(what)) {}
  FinishReason reason;
  std::string error;
};

// Sees every sampled row's logits: (sequence, output tokens before this sample, logits).
using LogitsObserver = std::function<void(SeqId, int32_t, std::span<const float>)>;

class EngineCore {
 public:
  // A core over `model` and `tokenizer` (both outlive it) with a cache of `blocks` (window
  // blocks, where given, at least min_window_blocks).
  EngineCore(LanguageModel& model, const Tokenizer& tokenizer, const EngineConfig& config, KvBlocks blocks);

  // Checks `request` and makes its sequence (prompt tokens, sampling state, constraint), or an
  // error saying what is wrong. Reads only immutable state: safe from any thread.
  std::expected<std::unique_ptr<Sequence>, Error> make_sequence(SeqId id, const GenerateRequest& request,
                                                                Clock::time_point arrival) const;
  // Queues a sequence made by make_sequence.
  void add(std::unique_ptr<Sequence> seq);
  // Cancels a queued or running request, freeing its blocks; its final output, or nullopt
  // when the id is unknown or already finished.
  std::optional<RequestOutput> cancel(SeqId id);
  // Cancels every request (engine shutdown).
  std::vector<RequestOutput> cancel_all();

  // Whether step() has anything to do.
  bool has_work() const { return scheduler_.has_work() || !pending_.empty(); }
  // Runs one step; returns the outputs of every request that produced tokens or finished.
  std::vector<RequestOutput> step();

  const MetricsSnapshot& metrics() const { return metrics_; }
  int32_t num_waiting() const { return scheduler_.num_waiting(); }
  int32_t num_running() const { return scheduler_.num_running(); }
  const BlockPool& block_pool() const { return pool_; }
  // The sliding-window layers' own blocks (empty where they share block_pool's).
  const BlockPool& window_pool() const { return window_pool_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }
  // Tokens the KV cache can hold in all.
  int64_t cache_capacity_tokens() const { return int64_t{pool_.num_blocks()} * pool_.block_size(); }
  // Calls `observer` with every row of logits before sampling (tests).
  void set_logits_observer(LogitsObserver observer) { observer_ = std::move(observer); }

 private:
  // Appends an output token: sequence, pending stream, text, constraint.
  void append_output(Sequence& seq, TokenId token, bool& hit_stop_string);
  // Samples after a computed last token and checks the stop conditions; how the sequence
  // finished when it is done (an error among them), nullopt while it goes on.
  std::optional<Finish> advance(Sequence& seq, std::span<const float> logits);
  // Appends the forced text of a constrained sequence (jump-forward); true when it completed.
  bool jump_forward(Sequence& seq, bool& hit_stop_string);
  // The sequence's output since the last one; with `finish`, it finishes (and leaves the core).
  RequestOutput collect(Sequence& seq, std::optional<Finish> finish);
  void log(std::string_view message) const;

  EngineConfig config_;
  LanguageModel& model_;
  const Tokenizer& tokenizer_;
  PieceIndex pieces_;
  int32_t sample_vocab_;  // logits columns that are real tokens of the tokenizer
  PagedKvCache cache_;
  BlockPool pool_;
  BlockPool window_pool_;
  KvCacheManager kv_;
  Scheduler scheduler_;
  ModelRunner runner_;
  Sampler sampler_;
  std::unordered_map<SeqId, std::unique_ptr<Sequence>> seqs_;
  std::vector<RequestOutput> pending_;  // outputs made outside step() (finished at admission)
  MetricsSnapshot metrics_;
  LogitsObserver observer_;
};

}  // namespace engine
