// The serving engine's public face, the only engine header the agents and arena layers use:
// submit a GenerateRequest (prompt text or token ids) from any thread, get a handle that
// streams tokens and text and then the final result; cancel; read a metrics snapshot.
// One engine thread runs every step; submit and cancel only post to its inbox and never wait
// for a step, and the engine never waits on a caller. The engine knows nothing about games.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>

#include "engine/core/engine_config.h"
#include "engine/core/metrics.h"
#include "engine/core/request.h"
#include "engine/error.h"
#include "engine/model/language_model.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

class RequestStream;
struct EngineInbox;

// A submitted request: its streamed chunks and final result. Copyable; thread-safe.
class RequestHandle {
 public:
  RequestId id() const { return id_; }
  // The next chunk of tokens and text, waiting for it; nullopt once the request has finished
  // and every chunk was taken.
  std::optional<StreamChunk> next();
  // The next chunk if one is ready now (never waits).
  std::optional<StreamChunk> try_next();
  // Waits for the final result (chunks not taken stay queued).
  GenerateResult wait();
  // Whether the final result is in.
  bool finished() const;
  // Asks the engine to cancel the request (no effect once it has finished).
  void cancel();

 private:
  friend class Engine;
  RequestHandle(RequestId id, std::shared_ptr<RequestStream> stream, std::weak_ptr<EngineInbox> inbox);

  RequestId id_;
  std::shared_ptr<RequestStream> stream_;
  std::weak_ptr<EngineInbox> inbox_;
};

class Engine {
 public:
  // An engine serving `model` with `tokenizer` (both must outlive it): sizes the KV cache from
  // config.cache and starts the engine thread; an error when the configuration cannot work.
  static std::expected<std::unique_ptr<Engine>, Error> create(LanguageModel& model,
                                                              const Tokenizer& tokenizer,
                                                              EngineConfig config);
  // Cancels every unfinished request and stops the engine thread.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a request; an error at once when it is invalid, can never fit in the KV cache, or
  // the waiting queue is full (max_queue).
  std::expected<RequestHandle, Error> submit(GenerateRequest request);
  // Cancels a request: it finishes with FinishReason::Cancelled and its blocks are freed.
  void cancel(RequestId id);
  // A copy of the current metrics.
  MetricsSnapshot metrics() const;

  // Blocks in the KV cache and tokens per block.
  int32_t num_kv_blocks() const;
  const EngineConfig& config() const;
  const Tokenizer& tokenizer() const;

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace engine
