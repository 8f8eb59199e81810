// The fleet backend against fake replicas (real HTTP servers in the test): prefix affinity keeps a
// shared prefix on one replica and is the same for a seed, bounded load spreads a burst, a
// failing replica is taken out and its request moves on, a probe brings it back, a fleet with no
// replica left is a clear backend error, and the session hints reach the servers.
#include "agents/backend/fleet.h"

#include <atomic>
#include <condition_variable>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/agents/llm_test_support.h"
#include "tests/agents/openai_test_server.h"

using agents::backend::CompletionRequest;
using agents::backend::CompletionResult;
using agents::backend::ReplicaRegistry;
using nlohmann::json;
using openai_test::FakeServer;
using openai_test::Received;
using openai_test::Reply;

namespace {

std::string answer(const std::string& content, int cached = 0) {
  return json{
      {"choices", {{{"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
      {"usage",
       {{"prompt_tokens", 100},
        {"completion_tokens", 1},
        {"prompt_tokens_details", {{"cached_tokens", cached}}}}}}
      .dump();
}

Reply ok(const Received&) {
  return Reply{200, answer("e4", 80)};
}

agents::OpenAiBackendConfig fleet_config(const std::vector<const FakeServer*>& servers,
                                         agents::Routing routing) {
  agents::OpenAiBackendConfig c;
  for (const auto* s : servers) c.endpoints.push_back({s->base_url(), 1, ""});
  c.model = "m";
  c.routing = routing;
  c.routing_seed = 11;
  c.timeout = std::chrono::milliseconds(3000);
  c.backoff = std::chrono::milliseconds(20);
  c.max_retries = 2;
  return c;
}

CompletionRequest request(const std::string& system, const std::string& session = "") {
  CompletionRequest r;
  r.messages = {{"system", system}, {"user", "your move?"}};
  r.session = session;
  return r;
}

// Submits `requests` at once and waits for every result (10 s at most).
std::vector<CompletionResult> run_all(agents::backend::LlmBackend& fleet,
                                      const std::vector<CompletionRequest>& requests) {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<CompletionResult> results(requests.size());
  size_t done = 0;
  std::vector<std::shared_ptr<agents::backend::PendingCompletion>> pending;
  for (size_t i = 0; i < requests.size(); ++i)
    pending.push_back(fleet.submit(requests[i], [&, i](CompletionResult r) {
      std::lock_guard lock(mutex);
      results[i] = std::move(r);
      ++done;
      cv.notify_all();
    }));
  std::unique_lock lock(mutex);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done == requests.size(); }));
  return results;
}

CompletionResult run_one(agents::backend::LlmBackend& fleet, const CompletionRequest& r) {
  return run_all(fleet, {r})[0];
}

std::shared_ptr<agents::backend::LlmBackend> make(const agents::OpenAiBackendConfig& c,
                                                  ReplicaRegistry& registry) {
  auto fleet = agents::backend::make_fleet_backend(
      c, std::vector<std::optional<std::string>>(c.endpoints.size()), registry);
  REQUIRE(fleet);
  return *fleet;
}

}  // namespace

TEST_CASE("fleet: prefix affinity keeps a prefix on one replica, the same for a seed", "[agents]") {
  FakeServer a(ok), b(ok), c(ok);
  const auto config = fleet_config({&a, &b, &c}, agents::Routing::PrefixAffinity);
  ReplicaRegistry registry;
  auto fleet = make(config, registry);
  // One at a time (no load), the same system prompt goes to the same replica every time.
  std::set<std::string> used;
  for (int i = 0; i < 6; ++i) {
    const auto r = run_one(*fleet, request("You play chess.", "alice/g000" + std::to_string(i)));
    REQUIRE_FALSE(r.failure);
    used.insert(r.replica);
  }
  CHECK(used.size() == 1);
  // Many prompts spread over the replicas; a second fleet with the seed routes each the same way.
  ReplicaRegistry other_registry;
  auto again = make(config, other_registry);
  std::set<std::string> spread;
  // 60 prompts: that one of the three replicas (on random ports) owns none has odds of ~1e-10.
  for (int p = 0; p < 60; ++p) {
    const auto req = request("System prompt number " + std::to_string(p));
    const auto first = run_one(*fleet, req), second = run_one(*again, req);
    CHECK(first.replica == second.replica);
    spread.insert(first.replica);
  }
  CHECK(spread.size() == 3);
  // The session hint reached the servers as the header and as the `user` field.
  int hinted = 0;
  for (const auto* server : {&a, &b, &c})
    for (const auto& g : server->received())
      if (!g.session.empty()) {
        CHECK(g.session == json::parse(g.body)["user"].get<std::string>());
        ++hinted;
      }
  CHECK(hinted == 6);
  const auto stats = registry.snapshot();
  REQUIRE(stats.size() == 3);
  int64_t requests = 0, cached = 0;
  for (const auto& s : stats) requests += s.requests, cached += s.cached_tokens;
  CHECK(requests == 66);
  CHECK(cached == 66 * 80);
}

TEST_CASE("fleet: bounded load spreads a burst that shares one prefix", "[agents]") {
  const auto slow = [](const Received&) { return Reply{200, answer("e4"), std::chrono::milliseconds(200)}; };
  FakeServer a(slow), b(slow), c(slow);
  ReplicaRegistry registry;
  auto fleet = make(fleet_config({&a, &b, &c}, agents::Routing::PrefixAffinity), registry);
  const auto results = run_all(*fleet, std::vector<CompletionRequest>(9, request("One prompt for all.")));
  std::map<std::string, int> per;
  for (const auto& r : results) {
    CHECK_FALSE(r.failure);
    ++per[r.replica];
  }
  // Nine at once: no replica holds more than ceil(1.25 * 9 / 3) = 4, so all three are used.
  CHECK(per.size() == 3);
  for (const auto* s : {&a, &b, &c}) CHECK(s->max_in_flight() <= 4);
}

TEST_CASE("fleet: a failing replica is taken out, its requests move on, a probe brings it back", "[agents]") {
  std::atomic<bool> down{true};
  FakeServer flaky([&](const Received& r) {
    if (down) return Reply{r.method == "GET" ? 503 : 500, R"({"error":{"message":"overloaded"}})"};
    return Reply{200, r.method == "GET" ? "{}" : answer("e4")};
  });
  FakeServer steady(ok);
  ReplicaRegistry registry;
  auto fleet = make(fleet_config({&flaky, &steady}, agents::Routing::RoundRobin), registry);
  // Round robin sends the first request to the flaky replica: it fails there and moves on.
  const auto first = run_one(*fleet, request("p"));
  REQUIRE_FALSE(first.failure);
  CHECK(first.replica == steady.base_url());
  CHECK(flaky.received().size() == 1);
  // Out of the fleet, the flaky one gets no requests, only probes.
  for (int i = 0; i < 4; ++i) CHECK(run_one(*fleet, request("p")).replica == steady.base_url());
  size_t posts = 0;
  for (const auto& g : flaky.received()) posts += g.method == "POST" ? 1 : 0;
  CHECK(posts == 1);
  // Back up: its probe (GET /health) succeeds and round robin uses it again.
  down = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool back = false;
  while (!back && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const auto& s : registry.snapshot())
      if (s.url == flaky.base_url()) back = s.healthy;
  }
  REQUIRE(back);
  bool probed = false;
  for (const auto& g : flaky.received()) probed = probed || (g.method == "GET" && g.target == "/health");
  CHECK(probed);
  std::set<std::string> used;
  for (int i = 0; i < 4; ++i) used.insert(run_one(*fleet, request("p")).replica);
  CHECK(used.count(flaky.base_url()) == 1);
}

TEST_CASE("fleet: with no replica left, a backend error that names each replica", "[agents]") {
  uint16_t port_a = 0, port_b = 0;
  {
    FakeServer gone_a(ok), gone_b(ok);
    port_a = gone_a.port();
    port_b = gone_b.port();
  }
  agents::OpenAiBackendConfig c;
  c.model = "m";
  c.endpoints = {{"http://127.0.0.1:" + std::to_string(port_a) + "/v1", 1, ""},
                 {"http://127.0.0.1:" + std::to_string(port_b) + "/v1", 2, ""}};
  c.backoff = std::chrono::milliseconds(5);
  c.max_retries = 1;
  ReplicaRegistry registry;
  auto fleet = make(c, registry);
  const auto r = run_one(*fleet, request("p"));
  REQUIRE(r.failure);
  CHECK(r.failure->kind == agents::FailureKind::BackendError);
  INFO(r.failure->message);
  CHECK(r.failure->message.find("no healthy replica in the fleet after 2 rounds") != std::string::npos);
  CHECK(r.failure->message.find(std::to_string(port_a)) != std::string::npos);
  CHECK(r.failure->message.find(std::to_string(port_b)) != std::string::npos);
  // Bad fleets are refused when made.
  c.endpoints.push_back(c.endpoints.front());
  CHECK_FALSE(agents::backend::make_fleet_backend(c, {std::nullopt, std::nullopt, std::nullopt}, registry));
  c.endpoints = {{"https://secure:8000/v1", 1, ""}};
  CHECK_FALSE(agents::backend::make_fleet_backend(c, {std::nullopt}, registry));
}

TEST_CASE("fleet: an LLM agent on a fleet reports the replica of each move", "[agents]") {
  FakeServer a(ok), b(ok);
  agents::LlmAgentConfig c;
  c.backend = agents::BackendKind::OpenAi;
  c.openai = fleet_config({&a, &b}, agents::Routing::PrefixAffinity);
  c.history = agents::HistoryMode::Conversation;
  agents::AgentEnvironment env;
  env.find_model = [](const std::string&) { return nullptr; };
  auto agent = agents::make_llm_agent(llm_test::agent_config("fleet-agent", c), env);
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  agents::GameStart start;
  start.game_id = "g0042";
  start.variant = "chess";
  start.start_fen = (*game)->fen();
  REQUIRE_FALSE((*agent)->new_game(start));
  const auto r = llm_test::wait((*agent)->start_move(llm_test::move_request(**game)));
  INFO((r.failure ? r.failure->message : ""));
  REQUIRE(r.ok());
  CHECK((r.replica == a.base_url() || r.replica == b.base_url()));
  const auto got = (r.replica == a.base_url() ? a : b).received();
  REQUIRE(got.size() == 1);
  CHECK(got[0].session == "fleet-agent/g0042");
}
