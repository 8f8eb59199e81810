// The remote backend: any OpenAI-compatible server (vLLM, SGLang, llama-server, Ollama, arena
// serve) over HTTP, through /chat/completions (endpoint chat: the server applies its template) or
// /completions (endpoint completions: the prompt as plain text). Constrained answers send the
// server's own constraint field (vLLM `structured_outputs.choice` with the older `guided_choice`
// beside it; llama-server a GBNF `grammar` alternating the choices); the agent still checks the
// answer. At most max_concurrency requests are in flight; 429, 503 and connection errors are
// retried with doubling backoff. The API key is sent as a bearer token and never written
// anywhere else (logs, results, errors).
#pragma once

#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "agents/agent_config.h"
#include "agents/backend/backend.h"

namespace agents::backend {

// A backend for `config` (base_url must be http://host[:port][/path]); an error naming what is
// wrong with the URL or the settings.
std::expected<std::shared_ptr<LlmBackend>, std::string> make_openai_backend(
    const OpenAiBackendConfig& config, std::optional<std::string> api_key);

// The JSON body sent for `request` (exposed for tests): model, messages or prompt, sampling,
// stop, and the constraint field.
std::string openai_request_body(const OpenAiBackendConfig& config, const CompletionRequest& request);

// The GBNF grammar that allows exactly one of `choices` (llama-server's `grammar`).
std::string gbnf_alternation(const std::vector<std::string>& choices);

}  // namespace agents::backend
