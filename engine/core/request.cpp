// The sampling parameters' range check and the names of finish reasons.
#include "engine/core/request.h"

#include <fmt/format.h>

#include <cmath>

namespace engine {

std::optional<SamplingError> validate(const SamplingParams& p) {
  auto bad = [](const char* field, std::string message) { return SamplingError{field, std::move(message)}; };
  if (!(p.temperature >= 0) || !std::isfinite(p.temperature))
    return bad("temperature", fmt::format("temperature {} must be a finite number >= 0", p.temperature));
  if (p.top_k < 0) return bad("top_k", fmt::format("top_k {} must be >= 0 (0 = off)", p.top_k));
  if (!(p.top_p > 0 && p.top_p <= 1)) return bad("top_p", fmt::format("top_p {} must be in (0, 1]", p.top_p));
  if (!(p.min_p >= 0 && p.min_p <= 1))
    return bad("min_p", fmt::format("min_p {} must be in [0, 1]", p.min_p));
  if (p.max_tokens < 1) return bad("max_tokens", fmt::format("max_tokens {} must be >= 1", p.max_tokens));
  return std::nullopt;
}

const char* to_string(FinishReason reason) {
  switch (reason) {
    case FinishReason::Stop:
      return "stop";
    case FinishReason::Length:
      return "length";
    case FinishReason::Cancelled:
      return "cancelled";
    case FinishReason::Error:
      return "error";
  }
  return "?";
}

}  // namespace engine
