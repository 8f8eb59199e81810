// EngineBackend: CompletionRequest -> engine::GenerateRequest (rendered, tokenized, constrained),
// GenerateResult -> CompletionResult in the engine's on_finish callback (no polling thread).
#include "agents/backend/engine_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <utility>

namespace agents::backend {

namespace {

// The engine request of one submit; cancel() may come before the handle exists.
class EnginePending final : public PendingCompletion {
 public:
  void cancel() override {
    std::optional<engine::RequestHandle> handle;
    {
      std::lock_guard lock(mutex_);
      cancelled_ = true;
      handle = handle_;
    }
    if (handle) handle->cancel();
  }
  // Stores the handle; cancels it at once when cancel() came first.
  void set_handle(engine::RequestHandle handle) {
    bool cancel_now = false;
    {
      std::lock_guard lock(mutex_);
      handle_ = handle;
      cancel_now = cancelled_;
    }
    if (cancel_now) handle.cancel();
  }

 private:
  std::mutex mutex_;
  std::optional<engine::RequestHandle> handle_;
  bool cancelled_ = false;
};

CompletionResult failed(FailureKind kind, std::string message) {
  CompletionResult r;
  r.failure = MoveFailure{kind, std::move(message)};
  return r;
}

}  // namespace

std::expected<std::string, std::string> request_prompt_text(const engine::LoadedModel& model,
                                                            const CompletionRequest& request) {
  std::string text = request.prompt;
  if (request.chat) {
    auto rendered = model.render_chat(request.messages);
    if (!rendered) return std::unexpected("chat template: " + rendered.error().message);
    text = std::move(*rendered);
  }
  return text + request.assistant_prefix;
}

EngineBackend::EngineBackend(ModelBinding binding) : binding_(std::move(binding)) {}

std::string EngineBackend::describe() const {
  return "engine " + binding_.name;
}

std::optional<std::string> EngineBackend::chat_unavailable() const {
  if (!binding_.model->chat()) return binding_.model->chat().error().message;
  return std::nullopt;
}

std::vector<int32_t> EngineBackend::prompt_tokens(const std::string& text,
                                                  const std::shared_ptr<const Continuation>& cont) const {
  if (!cont || text.size() < cont->text.size() || text.compare(0, cont->text.size(), cont->text) != 0)
    return binding_.model->tokenize_prompt(text);
  // Extends an earlier prompt + answer: its tokens as they were, then the new text alone.
  std::vector<int32_t> tokens = cont->tokens;
  const auto rest = binding_.model->tokenizer().encode(std::string_view(text).substr(cont->text.size()),
                                                       /*add_special=*/false, /*parse_special=*/true);
  tokens.insert(tokens.end(), rest.begin(), rest.end());
  return tokens;
}

namespace {

// The engine's result as the agent reads it; the continuation is the prompt plus the answer.
CompletionResult completion_result(const engine::GenerateResult& r, const std::vector<int32_t>& prompt_tokens,
                                   const std::string& text, const engine::Tokenizer& tokenizer) {
  CompletionResult out;
  switch (r.reason) {
    case engine::FinishReason::Cancelled:
      out.failure = MoveFailure{FailureKind::Cancelled, "the request was cancelled"};
      break;
    case engine::FinishReason::Error:
      out.failure = MoveFailure{FailureKind::BackendError, "engine error: " + r.error};
      break;
    case engine::FinishReason::Length:
      out.truncated = true;
      break;
    case engine::FinishReason::Stop:
      out.stopped_at_stop_string = true;
      break;
  }
  out.text = r.text;
  out.prompt_text = text;
  out.num_prompt_tokens = r.num_prompt_tokens;
  out.num_cached_tokens = r.num_cached_prompt_tokens;
  out.num_completion_tokens = static_cast<int32_t>(r.tokens.size());
  out.queue_seconds = r.queue_seconds;
  out.ttft_seconds = r.ttft_seconds;
  out.total_seconds = r.total_seconds;
  out.prompt_tokens = prompt_tokens;
  out.completion_tokens = r.tokens;
  if (!out.failure) {
    auto c = std::make_shared<Continuation>();
    c->text = text + tokenizer.decode(r.tokens, /*special=*/true);
    c->tokens = prompt_tokens;
    c->tokens.insert(c->tokens.end(), r.tokens.begin(), r.tokens.end());
    out.continuation = std::move(c);
  }
  return out;
}

}  // namespace

std::shared_ptr<PendingCompletion> EngineBackend::submit(CompletionRequest request,
                                                         std::function<void(CompletionResult)> on_done) {
  auto pending = std::make_shared<EnginePending>();
  auto prompt_text = request_prompt_text(*binding_.model, request);
  if (!prompt_text) {
    on_done(failed(FailureKind::BackendError, prompt_text.error()));
    return pending;
  }
  const std::string& text = *prompt_text;

  engine::GenerateRequest g;
  g.prompt_tokens = prompt_tokens(text, request.continue_from);
  g.sampling = std::move(request.sampling);
  g.allowed_completions = std::move(request.choices);
  // The answer's tokens at the least: one, or the longest choice (never more tokens than bytes,
  // plus one for an end-of-turn token).
  size_t needed = 1;
  for (const auto& c : g.allowed_completions) needed = std::max(needed, c.size() + 1);
  if (!g.allowed_completions.empty())
    g.sampling.max_tokens = std::max<int32_t>(g.sampling.max_tokens, static_cast<int32_t>(needed));
  const int32_t context = binding_.model->shape().context_length;
  if (context > 0 && g.prompt_tokens.size() + needed > static_cast<size_t>(context)) {
    auto r = failed(FailureKind::BackendError,
                    fmt::format("the prompt of {} tokens does not fit the model's context of {} tokens",
                                g.prompt_tokens.size(), context));
    r.context_overflow = true;
    r.prompt_text = text;
    r.num_prompt_tokens = static_cast<int32_t>(g.prompt_tokens.size());
    on_done(std::move(r));
    return pending;
  }
  if (context > 0) {  // generate no further than the context allows
    const int64_t room = context - static_cast<int64_t>(g.prompt_tokens.size());
    g.sampling.max_tokens = static_cast<int32_t>(std::min<int64_t>(g.sampling.max_tokens, room));
  }
  g.priority = request.priority;
  g.deadline = request.deadline;

  const engine::Tokenizer& tokenizer = binding_.model->tokenizer();
  auto tokens = std::make_shared<std::vector<int32_t>>(g.prompt_tokens);
  g.on_finish = [on_done, tokens, text, &tokenizer](const engine::GenerateResult& r) {
    on_done(completion_result(r, *tokens, text, tokenizer));
  };
  auto handle = binding_.engine->submit(std::move(g));
  if (!handle) {
    on_done(failed(FailureKind::BackendError,
                   fmt::format("engine refused the request: {}", handle.error().message)));
    return pending;
  }
  pending->set_handle(std::move(*handle));
  return pending;
}

}  // namespace agents::backend
