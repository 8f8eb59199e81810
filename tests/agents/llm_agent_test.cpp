// LlmAgent: prompts carry the board and the legal moves, answers through the real engine on a
// test model are always legal moves (constrained decoding), and unusable results are errors.
#include "agents/llm_agent.h"

#include <catch2/catch.hpp>

#include "engine/model/model.h"
#include "tests/common/testdata.h"

namespace {

// Plays `plies` moves of `variant`, both sides asked through one engine, and checks each answer.
void self_play(const std::filesystem::path& model_path, const std::string& variant, int plies) {
  auto model = engine::Model::load(model_path.string(), 1);
  REQUIRE(model);
  auto chat = engine::ChatTemplate::from_spec("chatml", "", "");
  REQUIRE(chat);
  engine::EngineConfig config;
  config.cache.kv_cache_bytes = size_t{64} << 20;
  auto engine = engine::Engine::create((*model)->network(), (*model)->tokenizer(), config);
  REQUIRE(engine);
  agents::LlmAgentConfig c;
  c.sampling.temperature = 1.0f;
  c.sampling.seed = 7;
  const agents::LlmAgent agent(**engine, *chat, c);

  auto game = games::make_game(variant);
  REQUIRE(game);
  for (int ply = 0; ply < plies && !(*game)->outcome().finished(); ++ply) {
    const auto msgs = agent.messages(**game);
    REQUIRE(msgs.size() == 2);
    CHECK(msgs[1].content.find((*game)->fen()) != std::string::npos);
    CHECK(msgs[1].content.find((*game)->legal_moves_human().front()) != std::string::npos);

    auto handle = agent.request_move(**game);
    REQUIRE(handle);
    const auto result = handle->wait();
    auto move = agent.read_move(**game, result);
    INFO("answer '" << result.text << "'");
    REQUIRE(move);
    const auto human = (*game)->legal_moves_human();
    CHECK(std::find(human.begin(), human.end(), result.text) != human.end());
    REQUIRE((*game)->apply(*move));
  }
}

}  // namespace

TEST_CASE("LlmAgent answers are legal chess and janggi moves on a real model", "[agents]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  self_play(path, "chess", 8);
  self_play(path, "janggi", 4);
}

TEST_CASE("LlmAgent turns cancelled, failed and illegal answers into errors", "[agents]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto model = engine::Model::load(path.string(), 1);
  REQUIRE(model);
  auto chat = engine::ChatTemplate::from_spec("llama2", "<s>", "</s>");
  REQUIRE(chat);
  engine::EngineConfig config;
  config.cache.kv_cache_bytes = size_t{16} << 20;
  auto engine = engine::Engine::create((*model)->network(), (*model)->tokenizer(), config);
  REQUIRE(engine);
  const agents::LlmAgent agent(**engine, *chat, {});
  auto game = games::make_game("chess");
  REQUIRE(game);

  engine::GenerateResult r;
  r.reason = engine::FinishReason::Cancelled;
  CHECK(agent.read_move(**game, r).error().find("cancelled") != std::string::npos);
  r.reason = engine::FinishReason::Error;
  r.error = "out of memory";
  CHECK(agent.read_move(**game, r).error().find("out of memory") != std::string::npos);
  r.reason = engine::FinishReason::Stop;
  r.text = "e2e5";
  CHECK(agent.read_move(**game, r).error().find("not a legal move") != std::string::npos);
  r.text = "e4";
  CHECK(agent.read_move(**game, r).value() == "e2e4");
}
