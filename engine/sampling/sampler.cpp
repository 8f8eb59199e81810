// Greedy and stochastic sampling with top-k, top-p and min-p over a candidate list.
#include "engine/sampling/sampler.h"

#include <algorithm>
#include <cmath>

namespace engine {

namespace {

// Higher logit first; the lower id breaks ties, so the order is total and deterministic.
bool before(TokenId a_id, float a, TokenId b_id, float b) {
  return a != b ? a > b : a_id < b_id;
}

// A uniform double in [0, 1) from 53 random bits.
double uniform01(SamplerRng& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace

std::optional<TokenId> Sampler::sample(std::span<const float> logits, const SamplingParams& params,
                                       std::span<const TokenId> allowed, SamplerRng& rng) {
  candidates_.clear();
  auto add = [&](TokenId id) {
    const float x = logits[static_cast<size_t>(id)];
    if (std::isfinite(x)) candidates_.push_back({id, x});
  };
  if (allowed.empty()) {
    for (TokenId id = 0; id < static_cast<TokenId>(logits.size()); ++id) add(id);
  } else {
    for (TokenId id : allowed)
      if (id >= 0 && static_cast<size_t>(id) < logits.size()) add(id);
  }
  if (candidates_.empty()) return std::nullopt;

  auto by_logit = [](const Candidate& a, const Candidate& b) { return before(a.id, a.logit, b.id, b.logit); };
  if (params.temperature <= 0.0f) return std::ranges::min(candidates_, by_logit).id;

  // Dividing by a positive temperature keeps the order, so top-k and sorting use raw logits.
  const auto n = static_cast<int32_t>(candidates_.size());
  if (params.top_k > 0 && params.top_k < n) {
    std::nth_element(candidates_.begin(), candidates_.begin() + params.top_k, candidates_.end(), by_logit);
    candidates_.resize(static_cast<size_t>(params.top_k));
  }
  const bool need_order = params.top_p < 1.0f || params.top_k > 0;
  if (need_order) std::ranges::sort(candidates_, by_logit);

  // Softmax weights exp((x - best) / T), stored back in `logit` as relative probabilities. The
  // best logit is subtracted before dividing and the division is done in double, so a tiny
  // temperature (1e-38) sends every other weight to 0 instead of overflowing to inf - inf = NaN:
  // the answer tends to the greedy one, as it should.
  double best = candidates_.front().logit;
  for (const auto& c : candidates_) best = std::max(best, static_cast<double>(c.logit));
  const double temperature = params.temperature;
  double total = 0;
  for (auto& c : candidates_) {
    c.logit = static_cast<float>(std::exp((static_cast<double>(c.logit) - best) / temperature));
    total += c.logit;
  }
  if (params.top_p < 1.0f) {
    // Keep the smallest head (in descending order) whose mass reaches top_p.
    double mass = 0;
    size_t keep = 0;
    while (keep < candidates_.size()) {
      mass += candidates_[keep++].logit / total;
      if (mass >= params.top_p) break;
    }
    candidates_.resize(std::max<size_t>(keep, 1));
  }
  if (params.min_p > 0.0f) {
    // The best candidate has weight exp(0) = 1, so its relative threshold is min_p itself.
    std::erase_if(candidates_, [&](const Candidate& c) { return c.logit < params.min_p; });
    if (candidates_.empty()) return std::nullopt;  // min_p > 1: rejected when the request is made
  }
  total = 0;
  for (const auto& c : candidates_) total += c.logit;
  double u = uniform01(rng) * total;
  for (const auto& c : candidates_) {
    u -= c.logit;
    if (u < 0) return c.id;
  }
  return candidates_.back().id;
}

}  // namespace engine
