// Sampler at the edges of the temperature range: a tiny positive temperature gives the greedy
// answer (no overflow to inf - inf = NaN), a huge one gives every finite candidate a chance, and
// no temperature >= 0 ever yields a token outside the candidates.
#include <catch2/catch.hpp>
#include <limits>
#include <set>
#include <vector>

#include "engine/sampling/sampler.h"

using namespace engine;

TEST_CASE("Sampler with a tiny positive temperature returns the argmax", "[engine]") {
  Sampler s;
  SamplerRng rng(11);
  SamplingParams p;
  const std::vector<float> logits{0.5f, 7.25f, -3.0f, 7.0f, 100.0f, -100.0f, 99.5f};
  for (float t : {1e-38f, std::numeric_limits<float>::denorm_min(), 1e-30f, 1e-10f, 1e-4f}) {
    p.temperature = t;
    for (int top_k : {0, 3}) {
      p.top_k = top_k;
      for (float top_p : {1.0f, 0.9f}) {
        p.top_p = top_p;
        for (int i = 0; i < 20; ++i) CHECK(s.sample(logits, p, {}, rng) == 4);
        CHECK(s.sample(logits, p, std::vector<TokenId>{0, 1, 2, 3}, rng) == 1);
      }
    }
  }
}

TEST_CASE("Sampler with a tiny temperature and min-p keeps the best token", "[engine]") {
  Sampler s;
  SamplerRng rng(5);
  SamplingParams p;
  p.temperature = 1e-38f;
  p.min_p = 0.5f;
  for (int i = 0; i < 20; ++i) CHECK(s.sample(std::vector<float>{1.0f, 4.0f, 3.5f}, p, {}, rng) == 1);
}

TEST_CASE("Sampler with extreme logits and temperatures stays among the candidates", "[engine]") {
  Sampler s;
  SamplerRng rng(9);
  SamplingParams p;
  const float big = std::numeric_limits<float>::max();
  const std::vector<float> logits{-big, big, 0.0f, big * 0.5f};
  for (float t : {1e-38f, 1e-3f, 1.0f, 1e3f, 1e38f, big}) {
    p.temperature = t;
    for (int i = 0; i < 20; ++i) {
      const auto id = s.sample(logits, p, {}, rng);
      REQUIRE(id);
      CHECK(*id >= 0);
      CHECK(*id < 4);
      if (t <= 1.0f) CHECK(*id == 1);
    }
  }
  // A huge temperature flattens the distribution: every candidate shows up.
  p.temperature = 1e30f;
  std::set<TokenId> seen;
  for (int i = 0; i < 400; ++i) seen.insert(*s.sample(std::vector<float>{0.0f, 5.0f, -5.0f}, p, {}, rng));
  CHECK(seen == std::set<TokenId>{0, 1, 2});
}
