// Where an LLM agent's requests go: one completion request (chat messages or a rendered prompt,
// sampling, an optional list of allowed answers) in, one CompletionResult out through a callback.
// Two implementations: the in-process engine (engine_backend.h) and any OpenAI-compatible server
// (openai_backend.h); tests add scripted ones. Backends never throw and never block the caller:
// submit() returns at once and `on_done` is called exactly once, on some backend thread (or
// inside submit() when the request is refused at once).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "engine/core/request.h"
#include "engine/tokenizer/chat_template.h"

namespace agents::backend {

// A prompt as the backend tokenized it plus what it generated, so that a later prompt extending
// this text can reuse the very same tokens (the prefix cache then hits on all of them). Opaque to
// the agent; only the engine backend fills it.
struct Continuation {
  std::string text;             // the prompt text followed by the generated text (control tokens spelled)
  std::vector<int32_t> tokens;  // its token ids
};

struct CompletionRequest {
  // The conversation (system, user, assistant, ... turns). With chat = true the backend applies the
  // model's chat template (the engine through LoadedModel::render_chat, a server through /chat);
  // with chat = false `prompt` is sent as plain text.
  std::vector<engine::ChatMessage> messages;
  bool chat = true;
  std::string prompt;  // the plain-text prompt (chat = false)
  // Reason mode's second request: text the answer continues, after the rendered conversation (the
  // open assistant turn: reasoning + marker). Empty for a fresh answer.
  std::string assistant_prefix;
  // Sampling, max_tokens and stop strings, as the engine takes them (stop_token_ids and
  // ignore_eos reach the engine backend only).
  engine::SamplingParams sampling{.max_tokens = 32};
  // When non-empty the answer must be exactly one of these strings (constrained decoding).
  std::vector<std::string> choices;
  int32_t priority = 0;
  std::optional<Clock::time_point> deadline;
  // A Continuation from an earlier result whose text this prompt extends (engine backend).
  std::shared_ptr<const Continuation> continue_from;
  // The session (agent and game, "agent/g0001"): sent to a remote server as a routing hint.
  std::string session;
  // What a fleet routes on for prefix affinity: requests with the same key go to the same
  // replica. Empty: the first prefix block (the system prompt). A conversation sets its session.
  std::string affinity;
};

// Why a remote request failed in a way that says nothing about the request itself: the server is
// unreachable or broken (Down: connection refused, 5xx, timeout) or only busy (429). A fleet
// moves such a request on to another replica.
enum class ReplicaFault { None, Busy, Down };

struct CompletionResult {
  std::optional<MoveFailure> failure;   // backend_error, timeout or cancelled; text unusable then
  std::string text;                     // the answer (stop string and control tokens excluded)
  std::string prompt_text;              // the prompt as sent (rendered chat or plain text; for a
                                        // remote chat endpoint, the messages written as JSON)
  bool stopped_at_stop_string = false;  // finished on one of `stop` (engine) / finish_reason "stop"
  bool truncated = false;               // ran out of max_tokens
  bool context_overflow = false;        // refused: the prompt (+ max_tokens) does not fit the context
  int32_t num_prompt_tokens = 0;
  int32_t num_cached_tokens = 0;
  int32_t num_completion_tokens = 0;
  double queue_seconds = 0;
  double ttft_seconds = 0;
  double total_seconds = 0;
  std::vector<int32_t> prompt_tokens;                // engine backend: the prompt's token ids
  std::vector<int32_t> completion_tokens;            // engine backend: the generated token ids
  std::shared_ptr<const Continuation> continuation;  // engine backend: prompt + answer, for reuse
  ReplicaFault replica_fault = ReplicaFault::None;   // remote backend: see ReplicaFault
  std::string replica;  // a fleet: the replica that answered (its base URL), or the last one tried
};

// A submitted request; cancel() asks the backend to stop it (on_done still comes, with Cancelled).
class PendingCompletion {
 public:
  virtual ~PendingCompletion() = default;
  // Safe to call at any time, from any thread, more than once.
  virtual void cancel() = 0;
};

class LlmBackend {
 public:
  virtual ~LlmBackend() = default;
  // Queues `request`; `on_done` runs once with the result. Never throws, never blocks.
  virtual std::shared_ptr<PendingCompletion> submit(CompletionRequest request,
                                                    std::function<void(CompletionResult)> on_done) = 0;
  // A short description for logs ("engine qwen-0.5b", "openai http://host:8000/v1 model m").
  virtual std::string describe() const = 0;
  // Whether the backend can apply a chat template (false: an engine model without one).
  virtual std::optional<std::string> chat_unavailable() const { return std::nullopt; }
};

}  // namespace agents::backend
