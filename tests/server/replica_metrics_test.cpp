// /metrics for fleet replicas: one sample per replica and family, labelled by its URL (escaped),
// with the figures the fleet counted; nothing at all without a fleet.
#include "arena/server/replica_metrics.h"

#include <catch2/catch.hpp>

using agents::backend::ReplicaStats;

TEST_CASE("replica metrics: a family per figure, a sample per replica", "[server]") {
  CHECK(arena::server::render_replica_metrics(std::vector<ReplicaStats>{}).empty());
  ReplicaStats up;
  up.url = "http://a:8000/v1";
  up.in_flight = 3;
  up.requests = 40;
  up.prompt_tokens = 1000;
  up.cached_tokens = 750;
  up.ttft_seconds_sum = 2.5;
  up.answered = 37;
  ReplicaStats down;
  down.url = "http://b:8000/v\"1";
  down.healthy = false;
  down.last_error = "refused";
  down.errors = 2;
  down.times_down = 1;
  const std::string text = arena::server::render_replica_metrics(std::vector<ReplicaStats>{up, down});
  CHECK(text.find("# TYPE arena:replica_requests_in_flight gauge\n") != std::string::npos);
  CHECK(text.find("arena:replica_requests_in_flight{replica=\"http://a:8000/v1\"} 3\n") != std::string::npos);
  CHECK(text.find("arena:replica_healthy{replica=\"http://a:8000/v1\"} 1\n") != std::string::npos);
  CHECK(text.find("arena:replica_healthy{replica=\"http://b:8000/v\\\"1\"} 0\n") != std::string::npos);
  CHECK(text.find("arena:replica_cached_tokens_total{replica=\"http://a:8000/v1\"} 750\n") !=
        std::string::npos);
  CHECK(text.find("arena:replica_prompt_tokens_total{replica=\"http://a:8000/v1\"} 1000\n") !=
        std::string::npos);
  CHECK(text.find("arena:replica_errors_total{replica=\"http://b:8000/v\\\"1\"} 2\n") != std::string::npos);
  CHECK(text.find("arena:replica_time_to_first_token_seconds_count{replica=\"http://a:8000/v1\"} 37\n") !=
        std::string::npos);
}
