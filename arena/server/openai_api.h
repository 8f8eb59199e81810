// The OpenAI-compatible API of `arena serve`: /v1/models, /v1/completions and
// /v1/chat/completions on one engine, streamed (server-sent events) or not, with the sampling
// parameters, stop, max_tokens, seed, usage (prompt_tokens_details.cached_tokens) and vLLM's
// constrained decoding `structured_outputs: {"choice": [...]}` (also `guided_choice`) mapped to
// the engine's allowed_completions. Errors use OpenAI's shape
// {"error": {"message", "type", "param", "code"}}: 400 naming the bad field, 404 for an unknown
// model, 429 with Retry-After when the engine's queue is full.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <string>

#include "arena/server/router.h"
#include "engine/api.h"

namespace arena::server {

struct OpenAiOptions {
  std::string model_name;            // the id clients use in "model"
  int32_t default_max_tokens = 256;  // when the request gives none
  int32_t retry_after_seconds = 1;   // Retry-After of a 429
};

class OpenAiApi final : public ApiHandler {
 public:
  // Serves `engine` (created from `model`); both must outlive the API.
  OpenAiApi(OpenAiOptions options, const engine::LoadedModel& model, engine::Engine& engine);

  RouteResult handle(const HttpRequest& request) override;

  // The engine request and reply shape a JSON body asks for, or the OpenAI error response
  // (openai_request.cpp).
  struct Parsed {
    engine::GenerateRequest request;
    bool chat = false, stream = false, include_usage = false;
    bool return_ids = false;  // return_token_ids (vLLM) / return_tokens (llama.cpp)
  };
  std::expected<Parsed, HttpResponse> parse(const nlohmann::json& body, bool chat) const;

 private:
  RouteResult complete(const HttpRequest& request, bool chat);

  OpenAiOptions options_;
  const engine::LoadedModel& model_;
  engine::Engine& engine_;
  std::atomic<uint64_t> next_id_{1};
};

// An OpenAI-shaped error response.
HttpResponse openai_error(int status, std::string_view message,
                          std::string_view type = "invalid_request_error", std::string_view param = {});

}  // namespace arena::server
