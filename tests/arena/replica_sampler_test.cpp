// The replica sampler: each sample reports a replica's requests, errors, mean TTFT and reported
// prefix hit rate since the previous one, with its in-flight count and health now.
#include "arena/tournament/replica_sampler.h"

#include <catch2/catch.hpp>

using agents::backend::CompletionResult;
using agents::backend::ReplicaRegistry;
using arena::tournament::ReplicaSampler;

namespace {

CompletionResult answered(double ttft, int32_t prompt, int32_t cached) {
  CompletionResult r;
  r.ttft_seconds = ttft;
  r.num_prompt_tokens = prompt;
  r.num_cached_tokens = cached;
  return r;
}

}  // namespace

TEST_CASE("replica samples: the deltas since the last sample, per replica", "[arena]") {
  ReplicaRegistry registry;
  ReplicaSampler sampler(registry);
  CHECK(sampler.sample().empty());  // no fleet, no samples

  auto a = registry.get("http://127.0.0.1:9/v1", std::chrono::milliseconds(100));
  REQUIRE(a);
  for (int i = 0; i < 3; ++i) (*a)->begin();
  (*a)->end(answered(0.2, 100, 80));
  (*a)->end(answered(0.4, 100, 40));
  CompletionResult failed;
  failed.failure = agents::MoveFailure{agents::FailureKind::BackendError, "server answered 500"};
  (*a)->begin();
  (*a)->end(failed);

  auto first = sampler.sample();
  REQUIRE(first.size() == 1);
  CHECK(first[0].source == "replica");
  CHECK(first[0].model == "http://127.0.0.1:9/v1");
  CHECK(first[0].running == 1);  // 4 begun, 3 ended
  CHECK(first[0].requests == 4);
  CHECK(first[0].errors == 1);
  CHECK(first[0].ttft_p50 == Approx(0.3));
  CHECK(first[0].prefix_hit_rate == Approx(0.6));
  CHECK(first[0].healthy);

  // Nothing new: no requests, the hit rate so far; taken out: not healthy.
  (*a)->mark_down("connection refused", std::chrono::milliseconds(60000));
  auto second = sampler.sample();
  REQUIRE(second.size() == 1);
  CHECK(second[0].requests == 0);
  CHECK(second[0].errors == 0);
  CHECK(second[0].ttft_p50 == 0);
  CHECK(second[0].prefix_hit_rate == Approx(0.6));
  CHECK_FALSE(second[0].healthy);
}
