// parse_openai_answer / openai_error_detail: nlohmann::json without exceptions escaping.
#include "agents/backend/openai_answer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace agents::backend {

using nlohmann::json;

namespace {

// A usage count: an integer in [0, 2^31 - 1], else 0 (a server's odd count must not lose the
// answer, nor be converted out of range: 1e300 or -5 tokens).
int32_t count(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v >= 0 && v <= INT32_MAX ? static_cast<int32_t>(v) : 0;
}

}  // namespace

std::expected<OpenAiAnswer, std::string> parse_openai_answer(std::string_view body, Endpoint endpoint) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  OpenAiAnswer out;
  try {
    if (parsed.is_discarded()) throw std::runtime_error("the body is not JSON");
    const auto& choice = parsed.at("choices").at(0);
    if (endpoint == Endpoint::Chat) {
      const auto& content = choice.at("message").at("content");
      out.text = content.is_string() ? content.get<std::string>() : std::string();
    } else {
      out.text = choice.at("text").get<std::string>();
    }
    const auto reason = choice.value("finish_reason", json()).is_string()
                            ? choice["finish_reason"].get<std::string>()
                            : std::string();
    out.truncated = reason == "length";
    out.stopped_at_stop_string = reason == "stop";
    if (parsed.contains("usage") && parsed["usage"].is_object()) {
      const auto& u = parsed["usage"];
      out.num_prompt_tokens = count(u, "prompt_tokens");
      out.num_completion_tokens = count(u, "completion_tokens");
      if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
        out.num_cached_tokens = count(u["prompt_tokens_details"], "cached_tokens");
    }
  } catch (const std::exception& e) {
    return std::unexpected(fmt::format("unreadable answer ({}): {}", e.what(), body.substr(0, 200)));
  }
  return out;
}

std::string openai_error_detail(std::string_view body) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded() && parsed.contains("error")) {
    const auto& e = parsed["error"];
    return e.is_object() && e.contains("message") && e["message"].is_string()
               ? e["message"].get<std::string>()
               : e.dump();
  }
  // vLLM's older error object: {"object": "error", "message": ...}.
  if (!parsed.is_discarded() && parsed.contains("message") && parsed["message"].is_string())
    return parsed["message"].get<std::string>();
  return std::string(body.substr(0, 200));
}

bool openai_context_exceeded(int status, std::string_view body) {
  if (status != 400 && status != 413) return false;
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string words;  // the error's code, type and message, lower case
  if (!parsed.is_discarded() && parsed.is_object()) {
    const json& e = parsed.contains("error") && parsed["error"].is_object() ? parsed["error"] : parsed;
    for (const char* key : {"code", "type", "message"})
      if (e.contains(key) && e[key].is_string()) words += e[key].get<std::string>() + "\n";
  } else {
    words = std::string(body.substr(0, 1000));
  }
  std::transform(words.begin(), words.end(), words.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto has = [&](std::string_view w) { return words.find(w) != std::string::npos; };
  if (has("context_length_exceeded") || has("exceed_context_size") || has("maximum model length"))
    return true;
  return has("context") && (has("length") || has("exceed") || has("size") || has("window") ||
                            has("too long") || has("model's context"));
}

}  // namespace agents::backend
