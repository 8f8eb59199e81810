// The LLM agent on real test models and on scripted answers: constrained answers are always
// legal (chess and janggi), free mode goes through retries with {illegal_reason} and then each
// on_failure, reason mode thinks and then plays a legal move, cancel resolves, two models in one
// process each serve their own agents, and bad configs are refused when the agent is made.
#include <algorithm>

#include "agents/llm/answer_reader.h"
#include "tests/agents/llm_test_support.h"
#include "tests/common/testdata.h"

using namespace llm_test;

namespace {

agents::LlmAgentConfig on_model(const std::string& model) {
  agents::LlmAgentConfig c;
  c.model = model;
  c.sampling.temperature = 1.0f;
  c.sampling.seed = 7;
  return c;
}

// Plays `plies` moves of `variant` with one agent per side through `t`'s engine.
void self_play(TestModel& t, const std::string& variant, agents::LlmAgentConfig c, int plies) {
  const auto env = t.env();
  auto white = agents::make_llm_agent(agent_config("a", c), env);
  auto black = agents::make_llm_agent(agent_config("b", c), env);
  REQUIRE(white);
  REQUIRE(black);
  auto game = games::make_game(variant);
  REQUIRE(game);
  REQUIRE_FALSE((*white)->new_game({"g1", variant, (*game)->fen(), games::Side::First, "b"}));
  REQUIRE_FALSE((*black)->new_game({"g1", variant, (*game)->fen(), games::Side::Second, "a"}));
  for (int ply = 0; ply < plies && !(*game)->outcome().finished(); ++ply) {
    auto& agent = (*game)->side_to_move() == games::Side::First ? *white : *black;
    const auto r = wait(agent->start_move(move_request(**game)));
    INFO(variant << " ply " << ply << " raw '" << r.raw << "' " << (r.failure ? r.failure->message : ""));
    REQUIRE(r.ok());
    const auto legal = (*game)->legal_moves();
    CHECK(std::find(legal.begin(), legal.end(), r.move) != legal.end());
    CHECK(r.num_prompt_tokens > 0);
    CHECK(r.num_completion_tokens > 0);
    CHECK(r.total_seconds > 0);
    CHECK(r.prompt.find((*game)->side_name()) != std::string::npos);
    if (c.mode == agents::OutputMode::Reason) CHECK(r.raw.find(c.reasoning_marker) != std::string::npos);
    REQUIRE((*game)->apply(r.move));
  }
}

}  // namespace

TEST_CASE("LLM agent: constrained answers on a real model are legal chess and janggi moves", "[agents]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  auto t = TestModel::open("qwen", path.string(), "chatml");
  self_play(t, "chess", on_model("qwen"), 8);
  self_play(t, "janggi", on_model("qwen"), 4);
  auto uci = on_model("qwen");
  uci.notation = agents::Notation::Uci;
  uci.chat = false;
  self_play(t, "chess", uci, 4);
  CHECK(t.engine->metrics().num_requests_finished == 16);
}

TEST_CASE("LLM agent: reason mode thinks, then plays a legal move after the marker", "[agents]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  auto t = TestModel::open("qwen", path.string(), "chatml");
  auto c = on_model("qwen");
  c.mode = agents::OutputMode::Reason;
  c.reasoning_tokens = 12;
  auto recording =
      std::make_shared<RecordingBackend>(std::make_shared<agents::backend::EngineBackend>(t.binding));
  auto agent = agents::make_llm_agent(agent_config("thinker", c), recording);
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  const auto r = wait((*agent)->start_move(move_request(**game)));
  INFO("raw '" << r.raw << "'");
  REQUIRE(r.ok());
  const auto results = recording->results();
  REQUIRE(results.size() == 2);
  CHECK(results[0].text == r.reasoning);
  CHECK(results[0].num_completion_tokens > 0);
  // The second prompt is the first prompt + the thinking + the marker, on the same tokens.
  CHECK(results[1].prompt_text == results[0].prompt_text + r.reasoning + c.reasoning_marker);
  REQUIRE(results[1].prompt_tokens.size() >= results[0].prompt_tokens.size());
  CHECK(std::equal(results[0].prompt_tokens.begin(), results[0].prompt_tokens.end(),
                   results[1].prompt_tokens.begin()));
  CHECK(results[1].num_cached_tokens >= results[0].num_prompt_tokens - 16);
  CHECK(r.raw == r.reasoning + c.reasoning_marker + results[1].text);
  CHECK(r.num_completion_tokens == results[0].num_completion_tokens + results[1].num_completion_tokens);
}

TEST_CASE("LLM agent: free mode retries with {illegal_reason}, then applies on_failure", "[agents]") {
  auto game = games::make_game("chess");
  REQUIRE(game);
  agents::LlmAgentConfig c;
  c.mode = agents::OutputMode::Free;
  c.max_retries = 2;
  c.move_template = "{legal_moves}\n{illegal_reason}Move:";

  SECTION("a legal move after a rejected one") {
    auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{"I like Qh5+", "Then 1. e4!"});
    auto agent = agents::make_llm_agent(agent_config("free", c), backend);
    REQUIRE(agent);
    const auto r = wait((*agent)->start_move(move_request(**game)));
    REQUIRE(r.ok());
    CHECK(r.move == "e2e4");
    CHECK(r.num_retries == 1);
    CHECK(r.raw == "Then 1. e4!");
    REQUIRE(backend->requests.size() == 2);
    const std::string first = backend->requests[0].messages.back().content;
    const std::string retry = backend->requests[1].messages.back().content;
    CHECK(first.find("rejected") == std::string::npos);
    CHECK(retry.find("'Qh5+' is not a legal move") != std::string::npos);
    CHECK(r.num_prompt_tokens == 20);  // both requests counted
  }
  for (auto [policy, label] : {std::pair{agents::OnFailure::Forfeit, "forfeit"},
                               {agents::OnFailure::RandomMove, "random_move"},
                               {agents::OnFailure::Resign, "resign"}}) {
    DYNAMIC_SECTION("every answer bad, then " << label) {
      c.on_failure = policy;
      auto backend =
          std::make_shared<ScriptedBackend>(std::vector<std::string>{"Ke2e5", "no idea", "pass", "unused"});
      auto agent = agents::make_llm_agent(agent_config("free", c), backend);
      REQUIRE(agent);
      const auto r = wait((*agent)->start_move(move_request(**game)));
      CHECK(backend->requests.size() == 3);  // the first try and two retries
      CHECK(r.num_retries == 2);
      CHECK(r.raw == "pass");
      CHECK(backend->requests[2].messages.back().content.find("no move found in the answer 'no idea'") !=
            std::string::npos);
      if (policy == agents::OnFailure::Forfeit) {
        REQUIRE(r.failure);
        CHECK(r.failure->kind == agents::FailureKind::Unparseable);
        CHECK(r.move.empty());
      } else if (policy == agents::OnFailure::RandomMove) {
        REQUIRE(r.ok());
        CHECK((*game)->parse_move(r.move).value() == r.move);
      } else {
        CHECK(r.resigned);
        CHECK_FALSE(r.failure);
      }
    }
  }
  SECTION("an illegal move is reported as illegal") {
    c.max_retries = 0;
    auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{"Nf6"});
    auto agent = agents::make_llm_agent(agent_config("free", c), backend);
    REQUIRE(agent);
    const auto r = wait((*agent)->start_move(move_request(**game)));
    REQUIRE(r.failure);
    CHECK(r.failure->kind == agents::FailureKind::Illegal);
    CHECK(r.failure->message.find("Nf6") != std::string::npos);
  }
}

TEST_CASE("LLM agent: a move template with {captures} gets the capturing moves", "[agents]") {
  auto game = games::make_game("chess");
  REQUIRE(game);
  for (auto m : {"e2e4", "d7d5"}) REQUIRE((*game)->apply(m));
  agents::LlmAgentConfig c;
  c.mode = agents::OutputMode::Free;
  c.move_template = "Captures: {captures}\nMove:";
  auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{"exd5"});
  auto agent = agents::make_llm_agent(agent_config("taker", c), backend);
  REQUIRE(agent);
  const auto r = wait((*agent)->start_move(move_request(**game)));
  REQUIRE(r.ok());
  REQUIRE(backend->requests.size() == 1);
  CHECK(backend->requests[0].messages.back().content == "Captures: exd5 pawn\nMove:");
}

TEST_CASE("LLM agent: scripted reason and constrained answers are checked against the legal moves",
          "[agents]") {
  auto game = games::make_game("janggi");
  REQUIRE(game);
  agents::LlmAgentConfig c;
  c.mode = agents::OutputMode::Reason;
  c.reasoning_marker = "Move:";
  const std::string move = (*game)->legal_moves_human().front();
  auto backend =
      std::make_shared<ScriptedBackend>(std::vector<std::string>{"the horse is strong. ", " " + move});
  auto agent = agents::make_llm_agent(agent_config("r", c), backend);
  REQUIRE(agent);
  const auto r = wait((*agent)->start_move(move_request(**game)));
  REQUIRE(r.ok());
  CHECK(r.move == (*game)->legal_moves().front());
  CHECK(r.reasoning == "the horse is strong. ");
  REQUIRE(backend->requests.size() == 2);
  CHECK(backend->requests[0].sampling.stop == std::vector<std::string>{"Move:"});
  CHECK(backend->requests[0].choices.empty());
  CHECK(backend->requests[1].assistant_prefix == "the horse is strong. Move:");
  CHECK(backend->requests[1].choices.size() == (*game)->legal_moves().size());

  // A server that ignored the constraint: the answer is still checked.
  c.mode = agents::OutputMode::Constrained;
  auto liar = std::make_shared<ScriptedBackend>(std::vector<std::string>{"e4"});
  auto agent2 = agents::make_llm_agent(agent_config("c", c), liar);
  REQUIRE(agent2);
  const auto bad = wait((*agent2)->start_move(move_request(**game)));
  REQUIRE(bad.failure);
  CHECK(bad.failure->kind == agents::FailureKind::Illegal);
}

TEST_CASE("LLM agent: cancel resolves the ticket as cancelled and cancels the backend request", "[agents]") {
  auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{});
  auto agent = agents::make_llm_agent(agent_config("slow", {}), backend);
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  bool ready_called = false;
  auto request = move_request(**game);
  request.on_ready = [&] { ready_called = true; };
  auto ticket = (*agent)->start_move(request);
  CHECK_FALSE(ticket->ready());
  REQUIRE(backend->holding());
  ticket->cancel();
  CHECK(backend->held_cancelled());
  backend->finish_held_cancelled();
  const auto r = wait(ticket);
  REQUIRE(r.failure);
  CHECK(r.failure->kind == agents::FailureKind::Cancelled);
  CHECK(ready_called);
}

TEST_CASE("LLM agent: two models in one process, each agent served by its own engine", "[agents]") {
  ARENA_REQUIRE_TESTDATA(qwen_path, "models/qwen2-bpe-tied-f32.gguf");
  ARENA_REQUIRE_TESTDATA(llama_path, "models/llama-spm-gqa-q8_0.gguf");
  auto qwen = TestModel::open("qwen", qwen_path.string(), "chatml");
  auto llama = TestModel::open("llama", llama_path.string(), "llama2");
  agents::AgentEnvironment env;
  env.find_model = [&](const std::string& n) -> const agents::ModelBinding* {
    if (n == "qwen") return &qwen.binding;
    if (n == "llama") return &llama.binding;
    return nullptr;
  };
  auto a = agents::make_llm_agent(agent_config("on-qwen", on_model("qwen")), env);
  auto b1 = agents::make_llm_agent(agent_config("on-llama-1", on_model("llama")), env);
  auto b2 = agents::make_llm_agent(agent_config("on-llama-2", on_model("llama")), env);
  REQUIRE(a);
  REQUIRE(b1);
  REQUIRE(b2);
  auto game = games::make_game("chess");
  REQUIRE(game);
  // All three asked at once; each ticket resolves from its own model's engine.
  auto ta = (*a)->start_move(move_request(**game));
  auto tb1 = (*b1)->start_move(move_request(**game));
  auto tb2 = (*b2)->start_move(move_request(**game));
  const auto ra = wait(ta), rb1 = wait(tb1), rb2 = wait(tb2);
  CHECK(ra.ok());
  CHECK(rb1.ok());
  CHECK(rb2.ok());
  CHECK(ra.prompt.find("<|im_start|>system") != std::string::npos);
  CHECK(rb1.prompt.find("[INST]") != std::string::npos);
  CHECK(qwen.engine->metrics().num_requests_finished == 1);
  CHECK(llama.engine->metrics().num_requests_finished == 2);
  CHECK(qwen.engine->metrics().prompt_tokens == ra.num_prompt_tokens);
  CHECK(llama.engine->metrics().prompt_tokens == rb1.num_prompt_tokens + rb2.num_prompt_tokens);
  // The second llama agent's identical prompt hit the first one's blocks (or they ran together).
  CHECK(llama.engine->metrics().prefix_cache_queries > 0);

  auto unknown = agents::make_llm_agent(agent_config("lost", on_model("gpt-9")), env);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("'gpt-9'") != std::string::npos);
}

TEST_CASE("LLM agent: bad configs are refused when the agent is made", "[agents]") {
  auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{});
  agents::LlmAgentConfig c;
  c.move_template = "Board:\n  {board} {oponent}";
  c.prompt_source = "prompts/move.txt";
  auto bad = agents::make_llm_agent(agent_config("typo", c), backend);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("move_template of agent 'typo' (prompts/move.txt)") != std::string::npos);
  CHECK(bad.error().message.find("line 2, column 11") != std::string::npos);
  CHECK(bad.error().message.find("{oponent}") != std::string::npos);

  c.move_template.clear();
  c.system_prompt = "You play {side}. The board: {board}";
  auto moving = agents::make_llm_agent(agent_config("sys", c), backend);
  REQUIRE_FALSE(moving);
  CHECK(moving.error().message.find("{board} changes every move") != std::string::npos);

  agents::LlmAgentConfig n;
  n.notation = agents::Notation::San;
  auto cfg = agent_config("san", n);
  cfg.variants = {"janggi"};
  auto wrong = agents::make_llm_agent(cfg, backend);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message.find("notation san") != std::string::npos);

  agents::LlmAgentConfig r;
  r.mode = agents::OutputMode::Reason;
  r.reasoning_marker.clear();
  CHECK_FALSE(agents::make_llm_agent(agent_config("r", r), backend));
}

TEST_CASE("LLM agent: broken UTF-8 in an answer is replaced in the result", "[agents]") {
  CHECK(agents::llm::to_valid_utf8("ok 02마83") == "ok 02마83");
  CHECK(agents::llm::to_valid_utf8("a\xC7\xDD"
                                   "b\xff") ==
        "a\xEF\xBF\xBD\xEF\xBF\xBD"
        "b\xEF\xBF\xBD");
  CHECK(agents::llm::to_valid_utf8("\xE0\x80\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
  agents::LlmAgentConfig c;
  c.mode = agents::OutputMode::Free;
  c.max_retries = 0;
  auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{"\xC7\xDDh9"});
  auto agent = agents::make_llm_agent(agent_config("broken", c), backend);
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  const auto r = wait((*agent)->start_move(move_request(**game)));
  REQUIRE(r.failure);
  CHECK(r.raw == "\xEF\xBF\xBD\xEF\xBF\xBDh9");
  CHECK(r.failure->message.find('\xC7') == std::string::npos);
}

TEST_CASE("LLM agent: cancelling a move on the engine cancels its request", "[agents]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  auto t = TestModel::open("qwen", path.string(), "chatml");
  auto c = on_model("qwen");
  c.mode = agents::OutputMode::Free;
  c.sampling.max_tokens = 1500;
  c.max_retries = 0;
  auto agent = agents::make_llm_agent(agent_config("long", c), t.env());
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  auto ticket = (*agent)->start_move(move_request(**game));
  ticket->cancel();
  const auto r = wait(ticket);
  // Cancelled, unless the model happened to finish first (a random model may stop at once).
  if (r.failure && r.failure->kind == agents::FailureKind::Cancelled) {
    CHECK(t.engine->metrics().num_requests_cancelled == 1);
  } else {
    CHECK(t.engine->metrics().num_requests_finished == 1);
  }
}

TEST_CASE("LLM agent: free answers are read in UCI and in Korean numeric notation", "[agents]") {
  agents::LlmAgentConfig c;
  c.mode = agents::OutputMode::Free;
  c.max_retries = 0;
  auto janggi = games::make_game("janggi");
  REQUIRE(janggi);
  const std::string korean = (*janggi)->legal_moves_human().front();
  for (const std::string& answer :
       {"I play " + korean + ".", "**" + (*janggi)->legal_moves().front() + "**"}) {
    auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{answer});
    auto agent = agents::make_llm_agent(agent_config("k", c), backend);
    REQUIRE(agent);
    const auto r = wait((*agent)->start_move(move_request(**janggi)));
    INFO(answer);
    REQUIRE(r.ok());
    CHECK(r.move == (*janggi)->legal_moves().front());
  }
}
