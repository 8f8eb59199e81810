// Fuzz target: the OpenAI-compatible JSON, both ways. The first byte picks the side; the rest is
// a JSON body:
//   0, 1: a /v1/chat/completions or /v1/completions request body as `arena serve` reads it
//         (OpenAiApi::parse on the qwen2 test model, with chatml);
//   2, 3: a 200 answer to the LLM agent's chat or completions request (parse_openai_answer);
//   4:    an error answer's body (openai_error_detail).
// Properties: no exception escapes; a refused request is an OpenAI error object naming a status
// 400, 404 or 500 with a non-empty message; an accepted one is within its documented bounds
// (prompt tokens non-empty and inside the vocabulary, prompt + max_tokens within the context,
// max_tokens >= 1, temperature finite and >= 0, top_p in (0, 1], min_p in [0, 1], top_k >= 0, stop and
// choice strings non-empty, a given temperature, top_k and priority kept as given); a client
// answer's error is a short "unreadable answer (...)" message, its token counts never negative.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/backend/openai_answer.h"
#include "arena/server/openai_api.h"
#include "engine/api.h"
#include "fuzz/fuzz_check.h"

namespace {

using nlohmann::json;

struct Served {
  std::unique_ptr<engine::LoadedModel> model;
  std::unique_ptr<engine::Engine> engine;
  std::unique_ptr<arena::server::OpenAiApi> api;
};

Served& served() {
  static Served s = [] {
    const char* env = std::getenv("ARENA_TESTDATA");
    const std::string path =
        std::string(env ? env : ARENA_FUZZ_TESTDATA) + "/models/qwen2-bpe-tied-q4_k_m.gguf";
    auto model = engine::LoadedModel::open(path, engine::ModelOptions{1, "chatml"});
    if (!model) {
      std::fprintf(stderr, "openai_json_fuzzer: %s (set ARENA_TESTDATA)\n", model.error().message.c_str());
      std::abort();
    }
    engine::EngineConfig config;
    config.cache.kv_cache_bytes = 4 << 20;
    auto engine = (*model)->create_engine(config);
    FUZZ_CHECK(engine.has_value());
    Served out{std::move(*model), std::move(*engine), nullptr};
    out.api = std::make_unique<arena::server::OpenAiApi>(arena::server::OpenAiOptions{"test-model", 16, 1},
                                                         *out.model, *out.engine);
    return out;
  }();
  return s;
}

void check_request(const json& body, bool chat) {
  Served& s = served();
  std::expected<arena::server::OpenAiApi::Parsed, arena::server::HttpResponse> parsed =
      std::unexpected(arena::server::HttpResponse{});
  try {
    parsed = s.api->parse(body, chat);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "OpenAiApi::parse threw: %s\n", e.what());
    FUZZ_CHECK(!"an exception escaped OpenAiApi::parse");
  }
  if (!parsed) {
    const auto& r = parsed.error();
    FUZZ_CHECK(r.status == 400 || r.status == 404 || r.status == 500);
    const json error = json::parse(r.body, nullptr, false);
    FUZZ_CHECK(error.is_object() && error.contains("error") && error["error"].is_object());
    const json& e = error["error"];
    FUZZ_CHECK(e.contains("message") && e["message"].is_string() && !e["message"].get<std::string>().empty());
    FUZZ_CHECK(e.value("code", json()) == r.status);
    return;
  }
  const engine::GenerateRequest& req = parsed->request;
  const auto& shape = s.model->shape();
  FUZZ_CHECK(parsed->chat == chat);
  FUZZ_CHECK(!req.prompt_tokens.empty());
  for (auto t : req.prompt_tokens) FUZZ_CHECK(t >= 0 && t < shape.vocab_size);
  const auto& p = req.sampling;
  FUZZ_CHECK(p.max_tokens >= 1);
  FUZZ_CHECK(static_cast<int64_t>(req.prompt_tokens.size()) + p.max_tokens <= shape.context_length);
  FUZZ_CHECK(!engine::validate(p));  // the engine's bounds: temperature finite and >= 0, ...
  FUZZ_CHECK(p.top_p > 0 && p.top_p <= 1);
  FUZZ_CHECK(p.min_p >= 0 && p.min_p <= 1);
  FUZZ_CHECK(p.top_k >= 0);
  for (const auto& stop : p.stop) FUZZ_CHECK(!stop.empty());
  for (const auto& c : req.allowed_completions) FUZZ_CHECK(!c.empty());
  if (body.contains("top_k") && body["top_k"].is_number_integer())
    FUZZ_CHECK(p.top_k == std::max<int64_t>(0, body["top_k"].get<int64_t>()));
  if (body.contains("priority")) FUZZ_CHECK(req.priority == body["priority"].get<int64_t>());
  if (body.contains("temperature") && body["temperature"].is_number())
    FUZZ_CHECK(p.temperature == static_cast<float>(body["temperature"].get<double>()));
}

void check_answer(std::string_view body, agents::Endpoint endpoint) {
  std::expected<agents::backend::OpenAiAnswer, std::string> answer = std::unexpected(std::string());
  try {
    answer = agents::backend::parse_openai_answer(body, endpoint);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parse_openai_answer threw: %s\n", e.what());
    FUZZ_CHECK(!"an exception escaped parse_openai_answer");
  }
  if (!answer) {
    FUZZ_CHECK(answer.error().starts_with("unreadable answer ("));
    FUZZ_CHECK(answer.error().size() <= 200 + 400);
    return;
  }
  FUZZ_CHECK(answer->num_prompt_tokens >= 0 && answer->num_completion_tokens >= 0 &&
             answer->num_cached_tokens >= 0);
  if (answer->truncated) FUZZ_CHECK(!answer->stopped_at_stop_string);
}

}  // namespace

// Loads the test model and starts its engine before the first input (not the first input's time,
// which -timeout bounds).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  served();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto text = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
    case 1: {
      // As OpenAiApi::complete: a body that is not JSON is a 400 before parse.
      const json body = json::parse(text, nullptr, false);
      if (!body.is_discarded()) check_request(body, data[0] % 5 == 0);
      break;
    }
    case 2:
      check_answer(text, agents::Endpoint::Chat);
      break;
    case 3:
      check_answer(text, agents::Endpoint::Completions);
      break;
    case 4:
      try {
        (void)agents::backend::openai_error_detail(text);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "openai_error_detail threw: %s\n", e.what());
        FUZZ_CHECK(!"an exception escaped openai_error_detail");
      }
      break;
  }
  return 0;
}
