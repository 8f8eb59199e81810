// Helpers for the LLM agent tests: a scripted backend (answers fed by the test, every request
// recorded), a recording wrapper around a real backend, agent configs, and a real test model with
// its engine.
#pragma once

#include <catch2/catch.hpp>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "agents/backend/backend.h"
#include "agents/backend/engine_backend.h"
#include "agents/llm/llm_agent.h"
#include "engine/api.h"
#include "games/game.h"

namespace llm_test {

using agents::backend::CompletionRequest;
using agents::backend::CompletionResult;

// Answers each request with the next scripted text (synchronously, inside submit), or holds it
// when the script is empty (answer_held() then answers it), recording every request.
class ScriptedBackend final : public agents::backend::LlmBackend {
 public:
  explicit ScriptedBackend(std::vector<std::string> answers) : answers_(answers.begin(), answers.end()) {}

  std::shared_ptr<agents::backend::PendingCompletion> submit(
      CompletionRequest request, std::function<void(CompletionResult)> on_done) override {
    auto pending = std::make_shared<Pending>();
    std::unique_lock lock(mutex_);
    requests.push_back(request);
    if (answers_.empty()) {
      pending->on_done = std::move(on_done);
      held_ = pending;
      return pending;
    }
    if (max_messages > 0 && request.messages.size() > max_messages) {
      lock.unlock();
      CompletionResult r;
      r.failure = agents::MoveFailure{agents::FailureKind::BackendError, "too long"};
      r.context_overflow = true;
      on_done(std::move(r));
      return pending;
    }
    CompletionResult r;
    r.text = answers_.front();
    answers_.pop_front();
    r.prompt_text = request.chat ? request.messages.back().content : request.prompt;
    r.num_prompt_tokens = 10;
    r.num_completion_tokens = 3;
    lock.unlock();
    on_done(std::move(r));
    return pending;
  }
  std::string describe() const override { return "scripted"; }

  // Whether a request is waiting for an answer.
  bool holding() const {
    std::lock_guard lock(mutex_);
    return held_ != nullptr;
  }
  // Whether the held request was cancelled.
  bool held_cancelled() const {
    std::lock_guard lock(mutex_);
    return held_ && held_->cancelled;
  }
  // Answers the held request with a cancellation (as the engine does after cancel()).
  void finish_held_cancelled() {
    std::shared_ptr<Pending> p;
    {
      std::lock_guard lock(mutex_);
      p = std::move(held_);
    }
    CompletionResult r;
    r.failure = agents::MoveFailure{agents::FailureKind::Cancelled, "cancelled"};
    p->on_done(std::move(r));
  }

  std::vector<CompletionRequest> requests;
  size_t max_messages = 0;  // more messages than this: refused as a context overflow (0 = no limit)

 private:
  struct Pending final : agents::backend::PendingCompletion {
    void cancel() override { cancelled = true; }
    std::function<void(CompletionResult)> on_done;
    bool cancelled = false;
  };
  mutable std::mutex mutex_;
  std::deque<std::string> answers_;
  std::shared_ptr<Pending> held_;
};

// Passes requests to a real backend and keeps every result.
class RecordingBackend final : public agents::backend::LlmBackend {
 public:
  explicit RecordingBackend(std::shared_ptr<agents::backend::LlmBackend> inner) : inner_(std::move(inner)) {}
  std::shared_ptr<agents::backend::PendingCompletion> submit(
      CompletionRequest request, std::function<void(CompletionResult)> on_done) override {
    return inner_->submit(std::move(request), [this, on_done](CompletionResult r) {
      {
        std::lock_guard lock(mutex_);
        results_.push_back(r);
      }
      on_done(std::move(r));
    });
  }
  std::string describe() const override { return inner_->describe(); }
  std::vector<CompletionResult> results() const {
    std::lock_guard lock(mutex_);
    return results_;
  }

 private:
  std::shared_ptr<agents::backend::LlmBackend> inner_;
  mutable std::mutex mutex_;
  std::vector<CompletionResult> results_;
};

// An llm agent config named `name` with `c` as its parameters.
inline agents::AgentConfig agent_config(const std::string& name, agents::LlmAgentConfig c) {
  agents::AgentConfig config;
  config.name = name;
  config.params = std::move(c);
  return config;
}

// A request for the side to move in `game` (its moves as the history).
inline agents::MoveRequest move_request(const games::Game& game, std::string opponent = "rival") {
  agents::MoveRequest r;
  r.game = std::shared_ptr<const games::Game>(game.clone());
  r.start_fen = game.start_fen();
  r.moves = game.moves();
  r.opponent = std::move(opponent);
  r.deadline = agents::Clock::now() + std::chrono::seconds(60);
  return r;
}

// A test model opened with an explicit chat template and an engine on it.
struct TestModel {
  std::unique_ptr<engine::LoadedModel> model;
  std::unique_ptr<engine::Engine> engine;
  agents::ModelBinding binding;

  // Opens `path` with chat template `chat`; engine with a `kv_mib` MiB KV cache.
  static TestModel open(const std::string& name, const std::string& path, const std::string& chat,
                        size_t kv_mib = 32) {
    TestModel t;
    auto model = engine::LoadedModel::open(path, engine::ModelOptions{1, chat});
    REQUIRE(model);
    t.model = std::move(*model);
    engine::EngineConfig config;
    config.cache.kv_cache_bytes = kv_mib << 20;
    auto e = t.model->create_engine(config);
    REQUIRE(e);
    t.engine = std::move(*e);
    t.binding = agents::ModelBinding{name, t.model.get(), t.engine.get()};
    return t;
  }
  // An environment knowing this model only.
  agents::AgentEnvironment env() const {
    agents::AgentEnvironment e;
    e.find_model = [this](const std::string& n) { return n == binding.name ? &binding : nullptr; };
    e.get_env = [](const std::string&) { return std::nullopt; };
    return e;
  }
};

// Waits for a ticket (at most 60 s).
inline agents::MoveResult wait(const std::shared_ptr<agents::MoveTicket>& ticket) {
  auto r = ticket->wait_for(std::chrono::seconds(60));
  REQUIRE(r);
  return *r;
}

}  // namespace llm_test
