// Remote backends shared by every instance of one agent. The tournament makes an agent instance
// per seat (an agent in four concurrent games has four), while an OpenAI backend's
// max_concurrency and connection pool are meant for the agent as a whole: the instances made
// through one AgentEnvironment holding a SharedBackends get the same backend. Thread-safe.
#pragma once

#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "agents/backend/backend.h"

namespace agents::backend {

class SharedBackends {
 public:
  using Made = std::expected<std::shared_ptr<LlmBackend>, std::string>;

  // The backend kept under `key` (the agent's name), or the one `make` returns, kept for the next
  // call; an error is returned and not kept.
  Made get(const std::string& key, const std::function<Made()>& make);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<LlmBackend>> backends_;
};

}  // namespace agents::backend
