// The agents' openai backend playing a game through `arena serve`'s API: two LLM agents with
// backend openai (chat endpoint, vLLM's structured_outputs constraint) against a board server
// serving a test model; every answer must be a legal move that came from the server.
#include <catch2/catch.hpp>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "arena/server/board_server.h"
#include "arena/server/openai_api.h"
#include "engine/api.h"
#include "games/game.h"
#include "tests/common/testdata.h"

TEST_CASE("the agents' openai backend plays a game through the OpenAI API", "[server]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto model = engine::LoadedModel::open(path.string(), engine::ModelOptions{2, "chatml"});
  REQUIRE(model.has_value());
  engine::EngineConfig config;
  config.cache.kv_cache_bytes = 16 << 20;
  auto engine = (*model)->create_engine(config);
  REQUIRE(engine.has_value());
  arena::server::ServerOptions options;
  options.api = std::make_shared<arena::server::OpenAiApi>(arena::server::OpenAiOptions{"served", 32, 1},
                                                           **model, **engine);
  arena::config::WebConfig web;
  web.port = 0;
  auto server = arena::server::BoardServer::start(web, "", {{"served", engine->get()}}, options);
  REQUIRE(server.has_value());

  agents::LlmAgentConfig llm;
  llm.backend = agents::BackendKind::OpenAi;
  llm.openai.base_url = (*server)->url() + "v1";
  llm.openai.model = "served";
  llm.openai.endpoint = agents::Endpoint::Chat;
  llm.openai.constraint = agents::RemoteConstraint::Vllm;
  llm.openai.timeout = std::chrono::milliseconds(20000);
  llm.mode = agents::OutputMode::Constrained;
  llm.notation = agents::Notation::Uci;
  agents::AgentEnvironment env;
  env.find_model = [](const std::string&) -> const agents::ModelBinding* { return nullptr; };
  env.get_env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  std::unique_ptr<agents::Agent> players[2];
  for (int i = 0; i < 2; ++i) {
    agents::AgentConfig ac;
    ac.name = i == 0 ? "white" : "black";
    ac.params = llm;
    auto agent = agents::make_agent(ac, env);
    REQUIRE(agent.has_value());
    players[i] = std::move(*agent);
  }

  auto game = games::make_game("chess");
  REQUIRE(game.has_value());
  std::shared_ptr<games::Game> position = std::move(*game);
  for (int i = 0; i < 2; ++i)
    REQUIRE_FALSE(players[i]->new_game({"g1", "chess", position->fen(),
                                        i == 0 ? games::Side::First : games::Side::Second,
                                        i == 0 ? "black" : "white"}));
  std::vector<std::string> moves;
  int64_t prompt_tokens = 0;
  for (int ply = 0; ply < 8 && !position->outcome().finished(); ++ply) {
    const int side = position->side_to_move() == games::Side::First ? 0 : 1;
    agents::MoveRequest request;
    request.game = std::shared_ptr<const games::Game>(position->clone());
    request.start_fen = position->start_fen();
    request.moves = moves;
    request.opponent = side == 0 ? "black" : "white";
    request.deadline = agents::Clock::now() + std::chrono::seconds(30);
    auto ticket = players[side]->start_move(request);
    auto result = ticket->wait_for(std::chrono::seconds(40));
    REQUIRE(result.has_value());
    INFO("ply " << ply << ": raw '" << result->raw << "'"
                << (result->failure ? " failure: " + result->failure->message : std::string()));
    REQUIRE(result->ok());
    CHECK(result->num_prompt_tokens > 0);
    prompt_tokens += result->num_prompt_tokens;
    REQUIRE(position->apply(result->move).has_value());
    moves.push_back(result->move);
  }
  for (auto& p : players) p->end_game({"*", "test over"});
  CHECK(moves.size() == 8);
  CHECK((*engine)->metrics().prompt_tokens >= prompt_tokens);
}
