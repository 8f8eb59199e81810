// Sampler: greedy with deterministic ties, masking by an allowed list, top-k / top-p / min-p
// filtering, per-request seeds, and the sampled distribution matching the softmax.
#include "engine/sampling/sampler.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

using namespace engine;

namespace {

std::vector<float> log_probs(const std::vector<double>& p) {
  std::vector<float> out;
  for (double x : p) out.push_back(static_cast<float>(std::log(x)));
  return out;
}

}  // namespace

TEST_CASE("Sampler greedy takes the argmax, the lowest id on ties", "[engine]") {
  Sampler s;
  SamplerRng rng(1);
  SamplingParams p;
  CHECK(s.sample(std::vector<float>{0.1f, 3.0f, -2.0f, 3.0f}, p, {}, rng) == 1);
  CHECK(s.sample(std::vector<float>{0.1f, 3.0f, -2.0f, 3.0f}, p, std::vector<TokenId>{2, 3}, rng) == 3);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK_FALSE(s.sample(std::vector<float>{-inf, -inf}, p, {}, rng));
  CHECK(s.sample(std::vector<float>{-inf, std::nanf(""), 0.0f}, p, {}, rng) == 2);
}

TEST_CASE("Sampler top-k 1 and a single allowed token are deterministic at any temperature", "[engine]") {
  Sampler s;
  SamplerRng rng(7);
  SamplingParams p;
  p.temperature = 2.0f;
  p.top_k = 1;
  for (int i = 0; i < 50; ++i) CHECK(s.sample(std::vector<float>{0.0f, 0.5f, 0.4f}, p, {}, rng) == 1);
  p.top_k = 0;
  for (int i = 0; i < 50; ++i)
    CHECK(s.sample(std::vector<float>{0.0f, 0.5f, 0.4f}, p, std::vector<TokenId>{0}, rng) == 0);
}

TEST_CASE("Sampler top-p keeps the smallest head reaching p; min-p drops unlikely tokens", "[engine]") {
  Sampler s;
  SamplerRng rng(3);
  const auto logits = log_probs({0.5, 0.3, 0.15, 0.05});
  SamplingParams p;
  p.temperature = 1.0f;
  p.top_p = 0.75f;  // 0.5 + 0.3 reaches it
  std::set<TokenId> seen;
  for (int i = 0; i < 400; ++i) seen.insert(*s.sample(logits, p, {}, rng));
  CHECK(seen == std::set<TokenId>{0, 1});
  p.top_p = 1.0f;
  p.min_p = 0.25f;  // keeps p >= 0.125
  seen.clear();
  for (int i = 0; i < 400; ++i) seen.insert(*s.sample(logits, p, {}, rng));
  CHECK(seen == std::set<TokenId>{0, 1, 2});
  p.min_p = 0.0f;
  p.top_k = 2;
  seen.clear();
  for (int i = 0; i < 400; ++i) seen.insert(*s.sample(logits, p, {}, rng));
  CHECK(seen == std::set<TokenId>{0, 1});
}

TEST_CASE("Sampler frequencies follow the softmax of logits / temperature", "[engine]") {
  Sampler s;
  SamplerRng rng(11);
  const std::vector<double> probs{0.5, 0.3, 0.2};
  SamplingParams p;
  p.temperature = 1.0f;
  std::vector<int> counts(3, 0);
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++counts[static_cast<size_t>(*s.sample(log_probs(probs), p, {}, rng))];
  for (size_t i = 0; i < 3; ++i) CHECK(counts[i] / double(n) == Approx(probs[i]).margin(0.015));
  // Temperature 0.5 squares the odds: p ∝ {0.25, 0.09, 0.04}.
  p.temperature = 0.5f;
  counts.assign(3, 0);
  for (int i = 0; i < n; ++i) ++counts[static_cast<size_t>(*s.sample(log_probs(probs), p, {}, rng))];
  CHECK(counts[0] / double(n) == Approx(0.25 / 0.38).margin(0.015));
}

TEST_CASE("Sampler draws depend only on the request's own generator", "[engine]") {
  Sampler s;
  const auto logits = log_probs({0.2, 0.2, 0.2, 0.2, 0.2});
  SamplingParams p;
  p.temperature = 1.0f;
  auto draw = [&](uint64_t seed) {
    SamplerRng rng(seed);
    std::vector<TokenId> out;
    for (int i = 0; i < 40; ++i) out.push_back(*s.sample(logits, p, {}, rng));
    return out;
  };
  CHECK(draw(42) == draw(42));
  CHECK(draw(42) != draw(43));
}
