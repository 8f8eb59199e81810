// Reading an OpenAI-compatible server's answer to a (not streamed) completion request: the text
// of the first choice, its finish reason and the usage counts from a 200 body, or the server's
// error message from any other. Pure functions of the body (the HTTP side, retries and the
// concurrency gate are openai_backend.cpp); fuzz/openai_json_fuzzer.cpp fuzzes them.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include "agents/agent_config.h"

namespace agents::backend {

struct OpenAiAnswer {
  std::string text;                     // choices[0].message.content (chat) or choices[0].text
  bool truncated = false;               // finish_reason "length"
  bool stopped_at_stop_string = false;  // finish_reason "stop"
  int32_t num_prompt_tokens = 0;        // usage (0 when absent or not a count in [0, 2^31 - 1])
  int32_t num_completion_tokens = 0;
  int32_t num_cached_tokens = 0;  // usage.prompt_tokens_details.cached_tokens
};

// The answer in the body of a 200 response from `endpoint`, or why it cannot be read
// ("unreadable answer (...): <the body's first 200 bytes>"). Never throws.
std::expected<OpenAiAnswer, std::string> parse_openai_answer(std::string_view body, Endpoint endpoint);

// What an error response's body says: error.message, else the error's JSON, else a top-level
// message, else the body's first 200 bytes. Never throws.
std::string openai_error_detail(std::string_view body);

// Whether an error response says the prompt (with max_tokens) does not fit the model's context:
// a 400 or 413 with OpenAI's code `context_length_exceeded`, llama-server's type
// `exceed_context_size_error`, or a message about the context's length or size (vLLM's "maximum
// context length", SGLang's "longer than the model's context length", arena serve's "this model's
// context is"). Never throws.
bool openai_context_exceeded(int status, std::string_view body);

}  // namespace agents::backend
