// Logits -> next token: greedy, or temperature with top-k, top-p and min-p filtering, drawing
// from the request's own random generator (so a seeded request gives the same tokens whatever
// else shares the batch). An optional allowed-token list (from a Constraint) masks the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "engine/core/request.h"

namespace engine {

// A request's random generator: one per sequence, seeded from SamplingParams::seed.
using SamplerRng = std::mt19937_64;

class Sampler {
 public:
  // The next token from `logits` ([vocab]) under `params`; when `allowed` is non-empty only
  // those ids can be chosen. nullopt when no candidate has a finite logit.
  std::optional<TokenId> sample(std::span<const float> logits, const SamplingParams& params,
                                std::span<const TokenId> allowed, SamplerRng& rng);

 private:
  struct Candidate {
    TokenId id;
    float logit;  // the raw logit, then its relative probability once chosen for sampling
  };
  std::vector<Candidate> candidates_;  // scratch, reused between calls
};

}  // namespace engine
