// The in-process backend: requests go to the arena's engine for the agent's model (shared by every
// agent on that model, so their requests batch together and share the prefix cache). The chat
// template is the model's (LoadedModel::render_chat); constrained answers use the engine's allowed
// completions. A request continuing an earlier Continuation reuses that prompt's exact tokens.
#pragma once

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "agents/backend/backend.h"

namespace agents::backend {

// The prompt text `request` sends to `model`: its messages through the model's chat template (or
// the plain prompt when chat is false), then the assistant prefix; the template's error otherwise.
// What the engine tokenizes, and what `arena dataset` trains the default model on.
std::expected<std::string, std::string> request_prompt_text(const engine::LoadedModel& model,
                                                            const CompletionRequest& request);

class EngineBackend final : public LlmBackend {
 public:
  // A backend over `binding`'s model and engine (both must outlive it).
  explicit EngineBackend(ModelBinding binding);

  std::shared_ptr<PendingCompletion> submit(CompletionRequest request,
                                            std::function<void(CompletionResult)> on_done) override;
  std::string describe() const override;
  std::optional<std::string> chat_unavailable() const override;

 private:
  // `text` tokenized; when it extends `cont`'s text, cont's tokens followed by the rest's.
  std::vector<int32_t> prompt_tokens(const std::string& text,
                                     const std::shared_ptr<const Continuation>& cont) const;

  ModelBinding binding_;
};

}  // namespace agents::backend
