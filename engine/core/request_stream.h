// The meeting point of the engine thread and one caller: the engine pushes chunks and the
// final result without ever waiting; the caller pops chunks or waits for the result.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

#include "engine/core/request.h"

namespace engine {

class RequestStream {
 public:
  // Engine side: queues one chunk (never blocks beyond a short lock).
  void push(StreamChunk chunk);
  // Engine side: records the final result and wakes every waiter.
  void finish(GenerateResult result);

  // Caller side: the next chunk, waiting for it; nullopt once finished and drained.
  std::optional<StreamChunk> next();
  // Caller side: the next chunk if one is queued now.
  std::optional<StreamChunk> try_next();
  // Caller side: waits for the final result.
  GenerateResult wait();
  // Whether the final result is in.
  bool finished() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<StreamChunk> chunks_;
  std::optional<GenerateResult> result_;
};

}  // namespace engine
