// The OpenAI-compatible backend against a real HTTP server in the test: chat and completions
// endpoints, the constraint field each server understands (vLLM choice, llama-server grammar),
// the API key as a bearer token only, 503 then success, a timeout, a 401, connection errors,
// keep-alive reuse, the concurrency limit (of one backend, and of an agent's instances), and a
// server's "context exceeded" 400 restarting a conversation.
#include "agents/backend/openai_backend.h"

#include <nlohmann/json.hpp>

#include "agents/backend/openai_answer.h"
#include "agents/backend/shared_backends.h"
#include "tests/agents/llm_test_support.h"
#include "tests/agents/openai_test_server.h"

using namespace llm_test;
using nlohmann::json;
using openai_test::FakeServer;
using openai_test::Received;
using openai_test::Reply;

namespace {

std::string chat_answer(const std::string& content, int prompt_tokens = 120, int cached = 96) {
  return json{
      {"choices", {{{"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
      {"usage",
       {{"prompt_tokens", prompt_tokens},
        {"completion_tokens", 2},
        {"prompt_tokens_details", {{"cached_tokens", cached}}}}}}
      .dump();
}

std::string completion_answer(const std::string& text) {
  return json{{"choices", {{{"text", text}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", 50}, {"completion_tokens", 3}}}}
      .dump();
}

agents::AgentEnvironment env_with_key() {
  agents::AgentEnvironment env;
  env.find_model = [](const std::string&) { return nullptr; };
  env.get_env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "ARENA_TEST_KEY") return std::string("sekrit-123");
    return std::nullopt;
  };
  return env;
}

agents::LlmAgentConfig remote(const FakeServer& server) {
  agents::LlmAgentConfig c;
  c.backend = agents::BackendKind::OpenAi;
  c.openai.base_url = server.base_url();
  c.openai.model = "served-model";
  c.openai.api_key_env = "ARENA_TEST_KEY";
  c.openai.timeout = std::chrono::milliseconds(3000);
  c.openai.backoff = std::chrono::milliseconds(10);
  return c;
}

agents::MoveResult play_first_move(const agents::LlmAgentConfig& c, const std::string& variant = "chess") {
  auto agent = agents::make_llm_agent(agent_config("remote", c), env_with_key());
  REQUIRE(agent);
  auto game = games::make_game(variant);
  REQUIRE(game);
  return wait((*agent)->start_move(move_request(**game)));
}

}  // namespace

TEST_CASE("OpenAI backend: chat endpoint with vLLM's choice constraint and the key as bearer token",
          "[agents]") {
  FakeServer server([](const Received&) { return Reply{200, chat_answer("Nf3")}; });
  const auto r = play_first_move(remote(server));
  INFO((r.failure ? r.failure->message : ""));
  REQUIRE(r.ok());
  CHECK(r.move == "g1f3");
  CHECK(r.num_prompt_tokens == 120);
  CHECK(r.num_cached_tokens == 96);
  CHECK(r.num_completion_tokens == 2);
  const auto got = server.received();
  REQUIRE(got.size() == 1);
  CHECK(got[0].method == "POST");
  CHECK(got[0].target == "/v1/chat/completions");
  CHECK(got[0].authorization == "Bearer sekrit-123");
  const auto body = json::parse(got[0].body);
  CHECK(body["model"] == "served-model");
  CHECK(body["messages"][0]["role"] == "system");
  CHECK(body["messages"][1]["role"] == "user");
  CHECK(body["structured_outputs"]["choice"].size() == 20);
  CHECK(body["guided_choice"] == body["structured_outputs"]["choice"]);
  CHECK(body["max_tokens"].get<int>() >= 1);
  CHECK(r.prompt.find("sekrit") == std::string::npos);
}

TEST_CASE("OpenAI backend: completions endpoint with a llama-server grammar", "[agents]") {
  FakeServer server([](const Received&) { return Reply{200, completion_answer(" 02마83")}; });
  auto c = remote(server);
  c.openai.endpoint = agents::Endpoint::Completions;
  c.openai.constraint = agents::RemoteConstraint::LlamaServer;
  c.chat = false;
  const auto r = play_first_move(c, "janggi");
  INFO((r.failure ? r.failure->message : ""));
  REQUIRE(r.ok());
  const auto got = server.received();
  REQUIRE(got.size() == 1);
  CHECK(got[0].target == "/v1/completions");
  const auto body = json::parse(got[0].body);
  CHECK(body["prompt"].get<std::string>().ends_with("Your move:"));
  CHECK_FALSE(body.contains("messages"));
  CHECK_FALSE(body.contains("structured_outputs"));
  const std::string grammar = body["grammar"];
  CHECK(grammar.starts_with("root ::= \""));
  CHECK(grammar.find(" | \"02마83\"") != std::string::npos);
  CHECK(agents::backend::gbnf_alternation({"a\"b", "c"}) == "root ::= \"a\\\"b\" | \"c\"");

  // chat: true cannot go to the completions endpoint.
  c.chat = true;
  auto refused = agents::make_llm_agent(agent_config("x", c), env_with_key());
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("chat: false") != std::string::npos);
}

TEST_CASE("OpenAI backend: 503 is retried with backoff, then the answer is used", "[agents]") {
  std::atomic<int> calls{0};
  FakeServer server([&](const Received&) {
    return ++calls <= 2 ? Reply{503, R"({"error":{"message":"overloaded"}})"} : Reply{200, chat_answer("e4")};
  });
  const auto r = play_first_move(remote(server));
  INFO((r.failure ? r.failure->message : ""));
  REQUIRE(r.ok());
  CHECK(r.move == "e2e4");
  CHECK(server.received().size() == 3);
  CHECK(server.connections() == 1);  // one kept-alive connection for all three

  // Out of retries: a backend error saying so.
  std::atomic<int> always{0};
  FakeServer busy([&](const Received&) {
    ++always;
    return Reply{429, "{}"};
  });
  auto c = remote(busy);
  c.openai.max_retries = 1;
  const auto failed = play_first_move(c);
  REQUIRE(failed.failure);
  CHECK(failed.failure->kind == agents::FailureKind::BackendError);
  CHECK(failed.failure->message.find("429") != std::string::npos);
  CHECK(failed.failure->message.find("after 2 tries") != std::string::npos);
  CHECK(always == 2);
}

TEST_CASE("OpenAI backend: a server that does not answer in time is a timeout", "[agents]") {
  FakeServer server([](const Received&) {
    return Reply{200, chat_answer("e4"), std::chrono::milliseconds(5000)};
  });
  auto c = remote(server);
  c.openai.timeout = std::chrono::milliseconds(300);
  const auto start = agents::Clock::now();
  const auto r = play_first_move(c);
  const double seconds = std::chrono::duration<double>(agents::Clock::now() - start).count();
  REQUIRE(r.failure);
  CHECK(r.failure->kind == agents::FailureKind::Timeout);
  CHECK(r.failure->message.find("300 ms") != std::string::npos);
  CHECK(seconds < 3.0);
}

TEST_CASE("OpenAI backend: a 401 is a backend error that names the variable, never the key", "[agents]") {
  FakeServer server([](const Received&) {
    return Reply{401, R"({"error":{"message":"Incorrect API key: sekrit-123"}})"};
  });
  const auto r = play_first_move(remote(server));
  REQUIRE(r.failure);
  CHECK(r.failure->kind == agents::FailureKind::BackendError);
  CHECK(r.failure->message.find("401") != std::string::npos);
  CHECK(r.failure->message.find("$ARENA_TEST_KEY") != std::string::npos);
  CHECK(r.failure->message.find("sekrit") == std::string::npos);
  CHECK(server.received().size() == 1);  // not retried

  auto c = remote(server);
  c.openai.api_key_env = "ARENA_MISSING_KEY";
  auto missing = agents::make_llm_agent(agent_config("x", c), env_with_key());
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("ARENA_MISSING_KEY") != std::string::npos);
}

TEST_CASE("OpenAI backend: connection errors are retried, then reported", "[agents]") {
  uint16_t port = 0;
  {
    FakeServer gone([](const Received&) { return Reply{}; });
    port = gone.port();
  }
  agents::LlmAgentConfig c;
  c.backend = agents::BackendKind::OpenAi;
  c.openai.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  c.openai.model = "m";
  c.openai.max_retries = 2;
  c.openai.backoff = std::chrono::milliseconds(5);
  const auto r = play_first_move(c);
  REQUIRE(r.failure);
  CHECK(r.failure->kind == agents::FailureKind::BackendError);
  CHECK(r.failure->message.find("after 3 tries") != std::string::npos);

  c.openai.base_url = "https://api.example.com/v1";
  CHECK_FALSE(agents::make_llm_agent(agent_config("x", c), env_with_key()));
  c.openai.base_url = "http://host:99999";
  CHECK_FALSE(agents::make_llm_agent(agent_config("x", c), env_with_key()));
}

TEST_CASE("OpenAI backend: reason mode continues the assistant turn; concurrency is limited", "[agents]") {
  std::atomic<int> calls{0};
  FakeServer server([&](const Received&) {
    return ++calls == 1 ? Reply{200, chat_answer("control the centre. ")} : Reply{200, chat_answer(" d4")};
  });
  auto c = remote(server);
  c.mode = agents::OutputMode::Reason;
  const auto r = play_first_move(c);
  INFO((r.failure ? r.failure->message : ""));
  REQUIRE(r.ok());
  CHECK(r.move == "d2d4");
  CHECK(r.reasoning == "control the centre. ");
  const auto got = server.received();
  REQUIRE(got.size() == 2);
  const auto first = json::parse(got[0].body), second = json::parse(got[1].body);
  CHECK(first["stop"] == json::array({"Move:"}));
  CHECK_FALSE(first.contains("structured_outputs"));
  CHECK(second["messages"].back()["role"] == "assistant");
  CHECK(second["messages"].back()["content"] == "control the centre. Move:");
  CHECK(second["continue_final_message"] == true);
  CHECK(second["structured_outputs"]["choice"][0].get<std::string>().starts_with(" "));

  // Three requests through one backend limited to one in flight reach the server one at a time.
  FakeServer slow([](const Received&) {
    return Reply{200, chat_answer("e4"), std::chrono::milliseconds(50)};
  });
  agents::OpenAiBackendConfig oc = remote(slow).openai;
  oc.max_concurrency = 1;
  auto backend = agents::backend::make_openai_backend(oc, std::string("k"));
  REQUIRE(backend);
  std::mutex mutex;
  std::condition_variable cv;
  int done = 0, failed = 0;
  for (int i = 0; i < 3; ++i) {
    agents::backend::CompletionRequest req;
    req.messages = {{"user", "move?"}};
    (*backend)->submit(req, [&](agents::backend::CompletionResult res) {
      std::lock_guard lock(mutex);  // (Catch2 assertions are for the test's thread only)
      failed += res.failure ? 1 : 0;
      ++done;
      cv.notify_all();
    });
  }
  std::unique_lock lock(mutex);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done == 3; }));
  CHECK(failed == 0);
  CHECK(slow.max_in_flight() == 1);
  CHECK(slow.received().size() == 3);
}

TEST_CASE("OpenAI backend: an agent destroyed with a request in flight resolves it as cancelled",
          "[agents]") {
  FakeServer server([](const Received&) {
    return Reply{200, chat_answer("e4"), std::chrono::milliseconds(300)};
  });
  auto agent = agents::make_llm_agent(agent_config("gone", remote(server)), env_with_key());
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  auto ticket = (*agent)->start_move(move_request(**game));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the request reaches the server
  agent->reset();
  const auto r = wait(ticket);
  REQUIRE(r.failure);
  CHECK(r.failure->kind == agents::FailureKind::Cancelled);
}

TEST_CASE("OpenAI backend: the instances of one agent share its max_concurrency", "[agents]") {
  // The tournament makes an instance per seat; through an environment with shared backends they
  // are one client, so an agent in three concurrent games still has at most one request in flight.
  for (const bool shared : {true, false}) {
    INFO("shared " << shared);
    FakeServer slow([](const Received&) {
      return Reply{200, chat_answer("e4"), std::chrono::milliseconds(150)};
    });
    agents::LlmAgentConfig c = remote(slow);
    c.openai.max_concurrency = 1;
    agents::AgentEnvironment env = env_with_key();
    if (shared) env.shared_backends = std::make_shared<agents::backend::SharedBackends>();
    auto game = games::make_game("chess");
    REQUIRE(game);
    std::vector<std::unique_ptr<agents::Agent>> seats;
    std::vector<std::shared_ptr<agents::MoveTicket>> tickets;
    for (int i = 0; i < 3; ++i) {
      auto agent = agents::make_llm_agent(agent_config("remote", c), env);
      REQUIRE(agent);
      seats.push_back(std::move(*agent));
    }
    for (auto& seat : seats) tickets.push_back(seat->start_move(move_request(**game)));
    for (const auto& ticket : tickets) CHECK_FALSE(wait(ticket).failure);
    CHECK(slow.received().size() == 3);
    if (shared)
      CHECK(slow.max_in_flight() == 1);
    else
      CHECK(slow.max_in_flight() > 1);  // each instance had its own limit of one
  }
}

TEST_CASE("OpenAI backend: the servers' context-exceeded refusals are recognised", "[agents]") {
  using agents::backend::openai_context_exceeded;
  // OpenAI, vLLM (old and v1), SGLang, llama-server, arena serve.
  CHECK(openai_context_exceeded(400, R"({"error":{"message":"x","code":"context_length_exceeded"}})"));
  CHECK(openai_context_exceeded(
      400,
      R"({"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens"})"));
  CHECK(openai_context_exceeded(
      400,
      R"({"error":{"message":"The decoder prompt (length 5000) is longer than the maximum model length of 4096."}})"));
  CHECK(openai_context_exceeded(
      400,
      R"({"error":{"message":"The input (5000 tokens) is longer than the model's context length (4096 tokens)."}})"));
  CHECK(openai_context_exceeded(
      400,
      R"({"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}})"));
  CHECK(openai_context_exceeded(
      400,
      R"({"error":{"message":"the prompt has 600 tokens; this model's context is 512","type":"invalid_request_error","code":400}})"));
  CHECK(openai_context_exceeded(413, "prompt too long for the context window"));
  // Other refusals are not.
  CHECK_FALSE(openai_context_exceeded(400, R"({"error":{"message":"'temperature' must be in [0, 2]"}})"));
  CHECK_FALSE(openai_context_exceeded(500, R"({"error":{"code":"context_length_exceeded"}})"));
  CHECK_FALSE(openai_context_exceeded(400, "not json"));
}

TEST_CASE("OpenAI backend: a conversation the server's context refuses restarts afresh", "[agents]") {
  // vLLM's refusal for any chat longer than system + user; first e4, then d4.
  std::atomic<int> answered{0};
  FakeServer server([&](const Received& got) {
    if (json::parse(got.body)["messages"].size() > 2)
      return Reply{400,
                   R"({"object":"error","message":"This model's maximum context length is 64 tokens."})"};
    return Reply{200, chat_answer(answered++ == 0 ? "e4" : "d4")};
  });
  auto c = remote(server);
  c.history = agents::HistoryMode::Conversation;
  c.mode = agents::OutputMode::Free;
  auto agent = agents::make_llm_agent(agent_config("talker", c), env_with_key());
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  REQUIRE_FALSE((*agent)->new_game({"g", "chess", "", games::Side::First, "rival"}));
  for (const auto& [expected, reply] : {std::pair{"e2e4", "e7e5"}, std::pair{"d2d4", "d7d5"}}) {
    const auto r = wait((*agent)->start_move(move_request(**game)));
    INFO((r.failure ? r.failure->message : ""));
    REQUIRE(r.ok());
    CHECK(r.move == expected);
    REQUIRE((*game)->apply(r.move));
    REQUIRE((*game)->apply(reply));
  }
  std::vector<size_t> sizes;
  for (const auto& got : server.received()) sizes.push_back(json::parse(got.body)["messages"].size());
  CHECK(sizes == std::vector<size_t>{2, 4, 2});  // the refused conversation, then afresh
}
