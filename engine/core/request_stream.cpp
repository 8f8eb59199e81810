// A thread-safe chunk queue with a final result.
#include "engine/core/request_stream.h"

namespace engine {

void RequestStream::push(StreamChunk chunk) {
  {
    std::lock_guard lock(mutex_);
    chunks_.push_back(std::move(chunk));
  }
  changed_.notify_all();
}

void RequestStream::finish(GenerateResult result) {
  {
    std::lock_guard lock(mutex_);
    result_ = std::move(result);
  }
  changed_.notify_all();
}

std::optional<StreamChunk> RequestStream::next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !chunks_.empty() || result_.has_value(); });
  if (chunks_.empty()) return std::nullopt;
  StreamChunk chunk = std::move(chunks_.front());
  chunks_.pop_front();
  return chunk;
}

std::optional<StreamChunk> RequestStream::try_next() {
  std::lock_guard lock(mutex_);
  if (chunks_.empty()) return std::nullopt;
  StreamChunk chunk = std::move(chunks_.front());
  chunks_.pop_front();
  return chunk;
}

GenerateResult RequestStream::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return result_.has_value(); });
  return *result_;
}

bool RequestStream::finished() const {
  std::lock_guard lock(mutex_);
  return result_.has_value();
}

}  // namespace engine
