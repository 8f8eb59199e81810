// What a caller submits to the engine and what it gets back: sampling parameters, the request
// (prompt text or token ids, optional allowed completions, priority, deadline), streamed
// chunks and the final result. Plain values; the engine never sees games, only strings.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/ids.h"

namespace engine {

using TokenId = int32_t;
using Clock = std::chrono::steady_clock;

// How the next token is chosen from the logits (temperature 0 means greedy: argmax) and when
// generation stops. The one sampling struct of the project: an LLM agent's config, its backend
// requests and the OpenAI server carry it as is, and validate() is its one range check.
struct SamplingParams {
  float temperature = 0.0f;
  int32_t top_k = 0;                // keep the k most likely tokens; 0 = all
  float top_p = 1.0f;               // keep the smallest set whose probability reaches top_p; 1 = all
  float min_p = 0.0f;               // drop tokens less likely than min_p x the most likely one; 0 = none
  std::optional<uint64_t> seed{};   // same seed, same request -> same tokens, whatever else runs
  int32_t max_tokens = 256;         // generated tokens at most (jump-forward tokens included)
  std::vector<std::string> stop{};  // stop strings (not included in the text)
  std::vector<TokenId> stop_token_ids{};  // extra tokens that end generation
  bool ignore_eos = false;                // keep generating past end-of-generation tokens
};

// A sampling parameter outside what the sampler accepts: the field's name and why.
struct SamplingError {
  std::string field;  // "temperature", "top_k", "top_p", "min_p", "max_tokens"
  std::string message;
};

// The bounds the sampler needs, nothing stricter: temperature finite and >= 0 (any positive value
// works: the weights are computed relative to the best logit), top_k >= 0, top_p in (0, 1] (0
// keeps no token), min_p in [0, 1] (above 1 it drops every token), max_tokens >= 1. Stop strings
// and seeds take any value. Engine::submit refuses a request that fails it.
std::optional<SamplingError> validate(const SamplingParams& params);

// One streamed piece of output: the tokens added since the last chunk and their text (text may
// lag the tokens by a few bytes: an incomplete UTF-8 character or a possible stop string).
struct StreamChunk {
  RequestId id;
  std::vector<TokenId> tokens;
  std::string text;
};

struct GenerateResult;

struct GenerateRequest {
  std::string prompt;                  // used when prompt_tokens is empty (encoded with special tokens)
  std::vector<TokenId> prompt_tokens;  // the prompt as token ids, taking precedence over `prompt`
  SamplingParams sampling;
  // When non-empty, the output is exactly one of these strings (constrained decoding), spelled
  // within max_tokens; submit refuses the request when not even the shortest one fits.
  std::vector<std::string> allowed_completions;
  int32_t priority = 0;                       // smaller runs first among requests with the same deadline
  std::optional<Clock::time_point> deadline;  // waiting requests run earliest deadline first
  // Called on the engine thread for every chunk; it must return quickly and never block.
  std::function<void(const StreamChunk&)> on_chunk;
  // Called on the engine thread once, with the final result, after the handle sees it finished
  // (so a waiter woken by it can take the result without blocking); it must never block.
  std::function<void(const GenerateResult&)> on_finish;
};

enum class FinishReason {
  Stop,       // end-of-generation token, stop token, stop string, or a complete allowed completion
  Length,     // max_tokens or the model's context reached
  Cancelled,  // cancelled by the caller or the engine shut down
  Error,      // the engine could not serve it (message in GenerateResult::error)
};

// "stop", "length", "cancelled", "error".
const char* to_string(FinishReason reason);

struct GenerateResult {
  RequestId id;
  FinishReason reason = FinishReason::Stop;
  std::string error;            // set when reason == Error
  std::vector<TokenId> tokens;  // generated tokens (an end-of-generation token included)
  std::string text;             // generated text (stop string and control tokens excluded)
  int32_t num_prompt_tokens = 0;
  int32_t num_cached_prompt_tokens = 0;  // prompt tokens served from the prefix cache at admission
  int32_t num_preemptions = 0;
  double queue_seconds = 0;  // submit -> first scheduled
  double ttft_seconds = 0;   // submit -> first token (0 when no token was produced)
  double total_seconds = 0;  // submit -> finish
  bool deadline_missed = false;
};

}  // namespace engine
