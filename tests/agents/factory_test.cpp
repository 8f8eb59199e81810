// The agent factory and the config enums: each type is made from its config struct, bad configs
// are errors that name the agent, and every enum name round-trips.
#include <catch2/catch.hpp>
#include <filesystem>

#include "agents/agent_config.h"

namespace {

agents::AgentEnvironment no_models() {
  agents::AgentEnvironment env;
  env.find_model = [](const std::string&) -> const agents::ModelBinding* { return nullptr; };
  env.get_env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  return env;
}

}  // namespace

TEST_CASE("config enums round-trip through their names", "[agents][factory]") {
  using namespace agents;
  for (auto v : {Notation::San, Notation::Uci, Notation::Korean}) CHECK(parse_notation(to_string(v)) == v);
  for (auto v : {OutputMode::Constrained, OutputMode::Free, OutputMode::Reason})
    CHECK(parse_output_mode(to_string(v)) == v);
  for (auto v : {OnFailure::Forfeit, OnFailure::RandomMove, OnFailure::Resign})
    CHECK(parse_on_failure(to_string(v)) == v);
  for (auto v : {HistoryMode::None, HistoryMode::Conversation}) CHECK(parse_history_mode(to_string(v)) == v);
  for (auto v : {BackendKind::Engine, BackendKind::OpenAi}) CHECK(parse_backend_kind(to_string(v)) == v);
  for (auto v : {RemoteConstraint::Vllm, RemoteConstraint::LlamaServer, RemoteConstraint::None})
    CHECK(parse_remote_constraint(to_string(v)) == v);
  for (auto v : {Endpoint::Chat, Endpoint::Completions}) CHECK(parse_endpoint(to_string(v)) == v);
  CHECK(std::string(to_string(OnFailure::RandomMove)) == "random_move");
  CHECK(std::string(to_string(RemoteConstraint::LlamaServer)) == "llama_server");
  CHECK(std::string(to_string(BackendKind::OpenAi)) == "openai");
  CHECK_FALSE(parse_notation("SAN"));
  CHECK_FALSE(parse_output_mode(""));
  CHECK_FALSE(parse_endpoint("responses"));
  for (auto kind : {FailureKind::Illegal, FailureKind::Unparseable, FailureKind::Timeout,
                    FailureKind::Crashed, FailureKind::BackendError, FailureKind::Cancelled})
    CHECK(parse_failure_kind(to_string(kind)) == kind);
}

TEST_CASE("factory makes search, random and uci agents by type", "[agents][factory]") {
  const auto env = no_models();
  agents::AgentConfig random{"rnd", {}, agents::RandomAgentConfig{7}};
  CHECK(std::string(random.type()) == "random");
  auto r = agents::make_agent(random, env);
  REQUIRE(r);
  CHECK((*r)->name() == "rnd");
  CHECK((*r)->supports("janggi"));

  agents::AgentConfig search{"s", {"chess"}, agents::SearchAgentConfig{}};
  CHECK(std::string(search.type()) == "search");
  auto s = agents::make_agent(search, env);
  REQUIRE(s);
  CHECK((*s)->supports("chess"));
  CHECK_FALSE((*s)->supports("janggi"));
  agents::MoveRequest request;
  auto game = games::make_game("chess");
  REQUIRE(game);
  request.game = std::move(*game);
  request.deadline = agents::Clock::now() + std::chrono::seconds(5);
  CHECK((*s)->start_move(request)->wait().ok());

  if (std::filesystem::exists("/usr/games/stockfish")) {
    agents::UciAgentConfig uci;
    uci.command = "stockfish";
    uci.movetime = std::chrono::milliseconds(20);
    agents::AgentConfig engine{"sf", {}, uci};
    CHECK(std::string(engine.type()) == "uci");
    auto u = agents::make_agent(engine, env);
    INFO((u ? "" : u.error().message));
    REQUIRE(u);
    CHECK((*u)->supports("chess"));
  }
  CHECK(std::string(agents::AgentConfig{"l", {}, agents::LlmAgentConfig{}}.type()) == "llm");
}

TEST_CASE("factory rejects bad configs with the agent's name", "[agents][factory]") {
  const auto env = no_models();
  CHECK_FALSE(agents::make_agent({"", {}, agents::RandomAgentConfig{}}, env));
  auto variant = agents::make_agent({"r", {"checkers"}, agents::RandomAgentConfig{}}, env);
  REQUIRE_FALSE(variant);
  CHECK(variant.error().message.find("'r'") != std::string::npos);
  CHECK(variant.error().message.find("checkers") != std::string::npos);
  agents::SearchAgentConfig deep;
  deep.depth = 0;
  CHECK_FALSE(agents::make_agent({"s", {}, deep}, env));
  agents::SearchAgentConfig nodes;
  nodes.nodes = 0;
  CHECK_FALSE(agents::make_agent({"s", {}, nodes}, env));
  agents::UciAgentConfig no_command;
  auto uci = agents::make_agent({"u", {}, no_command}, env);
  REQUIRE_FALSE(uci);
  CHECK(uci.error().message.find("command") != std::string::npos);
  // An llm agent on a model the arena does not have.
  agents::LlmAgentConfig llm;
  llm.model = "no-such-model";
  CHECK_FALSE(agents::make_agent({"l", {}, llm}, env));
}
