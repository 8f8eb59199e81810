// LLM agent prompts: every placeholder of a template is filled from the position, unknown ones
// are errors naming the template and position, the default prompts stay compact, and conversation
// mode continues the previous prompt + answer token for token so the engine's prefix cache hits.
#include <algorithm>

#include "agents/llm/default_prompts.h"
#include "agents/llm/position_text.h"
#include "agents/llm/prompt_template.h"
#include "tests/agents/llm_test_support.h"
#include "tests/common/testdata.h"

using namespace llm_test;
namespace llm = agents::llm;

TEST_CASE("Prompt templates fill every placeholder from the position", "[agents]") {
  auto game = games::make_game("chess");
  REQUIRE(game);
  for (auto m : {"e2e4", "e7e5", "g1f3"}) REQUIRE((*game)->apply(m));
  auto request = move_request(**game, "stockfish-1");
  request.clock =
      agents::ClockState{std::chrono::seconds(272), std::chrono::seconds(190), std::chrono::seconds(2)};

  std::string text;
  for (auto name : llm::kPlaceholderNames) text += std::string(name) + "=[{" + std::string(name) + "}]\n";
  auto t = llm::PromptTemplate::parse(text + "{{literal} {not a placeholder}", "test");
  REQUIRE(t);
  auto values = llm::position_values(request, agents::Notation::San);
  values[static_cast<size_t>(llm::Placeholder::IllegalReason)] = "bad. ";
  const std::string out = t->render(values);
  INFO(out);
  CHECK(out.find("game=[chess]") != std::string::npos);
  CHECK(out.find("variant=[chess]") != std::string::npos);
  CHECK(out.find("side=[Black]") != std::string::npos);
  CHECK(out.find("opponent=[stockfish-1]") != std::string::npos);
  CHECK(out.find("fen=[" + (*game)->fen() + "]") != std::string::npos);
  CHECK(out.find("board=[8 rnbqkbnr\n7 pppp.ppp\n6 ........\n5 ....p...\n4 ....P...\n3 .....N..\n2 PPPP.PPP\n"
                 "1 RNBQKB.R\n  abcdefgh]") != std::string::npos);
  CHECK(out.find("board_full=[" + (*game)->render_text() + "]") != std::string::npos);
  CHECK(out.find("legal_moves=[") != std::string::npos);
  CHECK(out.find(" Nc6 ") != std::string::npos);
  CHECK(values[static_cast<size_t>(llm::Placeholder::LegalMovesGrouped)] ==
        values[static_cast<size_t>(llm::Placeholder::LegalMoves)]);  // SAN is not grouped
  CHECK(out.find("\nNc6\n") != std::string::npos);                   // legal_moves_lines: one move a line
  CHECK(out.find("escapes=[none]") != std::string::npos);            // the pawn on e5 cannot move
  CHECK(out.find("history=[1. e4 e5 2. Nf3]") != std::string::npos);
  CHECK(out.find("last_move=[Nf3]") != std::string::npos);
  CHECK(out.find("move_number=[2]") != std::string::npos);
  CHECK(out.find("ply=[3]") != std::string::npos);
  CHECK(out.find("clock=[White 4:32, Black 3:10, +2s]") != std::string::npos);
  CHECK(out.find("illegal_reason=[bad. ]") != std::string::npos);
  CHECK(out.find("{literal} {not a placeholder}") != std::string::npos);

  // UCI notation, janggi side names and numbering, no clock, no moves yet.
  const auto uci = llm::position_values(request, agents::Notation::Uci);
  CHECK(uci[static_cast<size_t>(llm::Placeholder::History)] == "1. e2e4 e7e5 2. g1f3");
  auto janggi = games::make_game("janggi");
  REQUIRE(janggi);
  const auto jv = llm::position_values(move_request(**janggi), agents::Notation::Korean);
  CHECK(jv[static_cast<size_t>(llm::Placeholder::Side)] == "Cho");
  CHECK(jv[static_cast<size_t>(llm::Placeholder::History)] == "none");
  CHECK(jv[static_cast<size_t>(llm::Placeholder::LastMove)] == "none");
  CHECK(jv[static_cast<size_t>(llm::Placeholder::Clock)] == "none");
  CHECK(jv[static_cast<size_t>(llm::Placeholder::Board)].starts_with("10 rnba.abnr\n9 ....k....\n"));
  CHECK(jv[static_cast<size_t>(llm::Placeholder::Board)].ends_with("\n  abcdefghi"));

  // Grouped Korean moves expand back to exactly the legal moves.
  const std::string grouped = jv[static_cast<size_t>(llm::Placeholder::LegalMovesGrouped)];
  std::vector<std::string> expanded;
  size_t start = 0;
  while (start < grouped.size()) {
    size_t end = grouped.find(", ", start);
    if (end == std::string::npos) end = grouped.size();
    const std::string group = grouped.substr(start, end - start);
    size_t space = group.find(' ');
    const std::string first = group.substr(0, space);
    expanded.push_back(first);
    while (space != std::string::npos) {
      const size_t next = group.find(' ', space + 1);
      expanded.push_back(first.substr(0, first.size() - 2) + group.substr(space + 1, next - space - 1));
      space = next;
    }
    start = end + 2;
  }
  auto legal = (*janggi)->legal_moves_human();
  std::sort(legal.begin(), legal.end());
  std::sort(expanded.begin(), expanded.end());
  CHECK(expanded == legal);
  CHECK(grouped.size() < jv[static_cast<size_t>(llm::Placeholder::LegalMoves)].size());
  std::string lines = jv[static_cast<size_t>(llm::Placeholder::LegalMovesLines)];
  std::replace(lines.begin(), lines.end(), '\n', ' ');
  CHECK(lines == jv[static_cast<size_t>(llm::Placeholder::LegalMoves)]);  // every move spelled out
}

TEST_CASE("The captures placeholder lists each capturing move with the piece it takes", "[agents]") {
  auto value = [](const games::Game& game, agents::Notation notation) {
    return llm::position_values(move_request(game),
                                notation)[static_cast<size_t>(llm::Placeholder::Captures)];
  };
  auto chess = games::make_game("chess");
  REQUIRE(chess);
  CHECK(value(**chess, agents::Notation::San) == "none");
  for (auto m : {"e2e4", "d7d5"}) REQUIRE((*chess)->apply(m));
  CHECK(value(**chess, agents::Notation::San) == "exd5 pawn");
  CHECK(value(**chess, agents::Notation::Uci) == "e4d5 pawn");
  // En passant takes a pawn that is not on the destination square; promotions name the taken piece.
  auto ep = games::make_game("chess", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
  REQUIRE(ep);
  CHECK(value(**ep, agents::Notation::San) == "exd6 pawn");
  // One a line, the best last: the most valuable piece, ties in legal-move order.
  auto fork = games::make_game("chess", "4k3/4q3/1p6/3N4/8/8/4P3/4K3 w - - 0 1");
  REQUIRE(fork);
  CHECK(value(**fork, agents::Notation::San) == "Nxb6 pawn\nNxe7 queen");
  // A free knight after (better than) a rook the queen would lose to the pawn's recapture.
  auto defended = games::make_game("chess", "4k3/4p3/3r4/8/8/8/8/n2QK3 w - - 0 1");
  REQUIRE(defended);
  CHECK(value(**defended, agents::Notation::San) == "Qxd6 rook\nQxa1 knight");
  auto promo = games::make_game("chess", "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
  REQUIRE(promo);
  CHECK(value(**promo, agents::Notation::San) == "axb8=N rook\naxb8=B rook\naxb8=R+ rook\naxb8=Q+ rook");
  // Janggi: Cho's chariot on a1 can take Han's soldier on a7 (ten ranks: "a7", never "a10" read as "a1").
  auto janggi = games::make_game("janggi", "3k5/9/9/p8/9/9/9/9/4K4/R8 w - - 0 1");
  REQUIRE(janggi);
  const std::string korean = value(**janggi, agents::Notation::Korean);
  INFO(korean);
  CHECK(korean.find(" soldier") != std::string::npos);
  CHECK(korean.find(',') == std::string::npos);
}

TEST_CASE("The escapes placeholder lists the moves that save an attacked piece", "[agents]") {
  auto value = [](const games::Game& game, agents::Notation notation) {
    return llm::position_values(move_request(game), notation)[static_cast<size_t>(llm::Placeholder::Escapes)];
  };
  auto start = games::make_game("chess");
  REQUIRE(start);
  CHECK(value(**start, agents::Notation::San) == "none");
  // The knight on d4 is attacked by the pawn on e5: its squares the pawns do not guard (c6 and e6
  // are d7's and f7's, b5 is a6's), the last in legal-move order first; the rook on h1 is not attacked.
  auto knight = games::make_game("chess", "4k3/3p1p2/p7/4p3/3N4/8/8/4K2R w - - 0 1");
  REQUIRE(knight);
  CHECK(value(**knight, agents::Notation::San) == "Nf5\nNf3\nNb3\nNe2\nNc2");
  // The most valuable piece last: the queen on d1 (by the rook on d8) and the rook on a1 (by the knight
  // on b3) are both attacked; Qxd8+ is no escape (the king takes back), Qxb3 is.
  auto two = games::make_game("chess", "3rk3/8/8/8/8/1n6/8/R2QK3 w - - 0 1");
  REQUIRE(two);
  const std::string both = value(**two, agents::Notation::San);
  INFO(both);
  CHECK(both.substr(both.rfind('\n') + 1).starts_with("Q"));
  CHECK(both.find("Qxb3") != std::string::npos);
  CHECK(both.find("Qxd8") == std::string::npos);
  // In check every legal move answers the check: no escapes.
  auto check = games::make_game("chess", "4k3/8/8/8/8/8/3q4/R3K3 w - - 0 1");
  REQUIRE(check);
  CHECK(value(**check, agents::Notation::San) == "none");
  // Janggi, in Korean notation: Cho's chariot on a1 is attacked by Han's chariot on a10.
  auto janggi = games::make_game("janggi", "r2k5/9/9/9/9/9/9/9/4K4/R8 w - - 0 1");
  REQUIRE(janggi);
  const std::string korean = value(**janggi, agents::Notation::Korean);
  INFO(korean);
  CHECK(korean != "none");
  CHECK(korean.find("차") != std::string::npos);
}

TEST_CASE("Prompt templates: an unknown placeholder is an error naming the template and position",
          "[agents]") {
  auto bad = llm::PromptTemplate::parse("ok {fen}\nthen {legal_move} here", "move_template of agent 'x'");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("move_template of agent 'x': line 2, column 6: unknown placeholder {legal_move}") !=
        std::string::npos);
  CHECK(bad.error().find("{legal_moves}") != std::string::npos);  // the known names are listed
  auto sys = llm::PromptTemplate::parse("{game} as {side} vs {opponent}", "system", /*per_game_only=*/true);
  REQUIRE(sys);
  CHECK_FALSE(llm::PromptTemplate::parse("{ply}", "system", true));
}

TEST_CASE("Default prompts: compact per-move part, legend in the cached system prompt", "[agents]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  auto model = engine::LoadedModel::open(path.string(), engine::ModelOptions{1, "chatml"});
  REQUIRE(model);
  for (const std::string variant : {"chess", "janggi"}) {
    auto game = games::make_game(variant);
    REQUIRE(game);
    const auto notation = llm::default_notation(variant);
    auto values = llm::position_values(move_request(**game), notation);
    auto system = llm::PromptTemplate::parse(llm::default_system_prompt(variant), "s", true);
    auto move = llm::PromptTemplate::parse(llm::default_move_template(variant), "m");
    REQUIRE(system);
    REQUIRE(move);
    const auto sys_tokens = (*model)->tokenize_prompt(system->render(values)).size();
    const auto move_tokens = (*model)->tokenize_prompt(move->render(values)).size();
    const auto old_tokens =
        (*model)
            ->tokenize_prompt((*game)->render_text() + "FEN: " + (*game)->fen() +
                              "Legal moves: " + values[static_cast<size_t>(llm::Placeholder::LegalMoves)])
            .size();
    WARN(variant << " default prompt on the qwen2 test vocabulary: system " << sys_tokens
                 << " tokens, per move " << move_tokens << " tokens (the old per-move text: " << old_tokens
                 << ")");
    CHECK(move_tokens < old_tokens);
  }
}

TEST_CASE("Conversation mode: the next prompt continues the last prompt + answer, and hits the cache",
          "[agents]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  for (const bool chat : {true, false}) {
    auto t = TestModel::open("qwen", path.string(), "chatml");
    agents::LlmAgentConfig c;
    c.model = "qwen";
    c.history = agents::HistoryMode::Conversation;
    c.chat = chat;
    c.sampling.temperature = 1.0f;
    c.sampling.seed = 3;
    auto recording =
        std::make_shared<RecordingBackend>(std::make_shared<agents::backend::EngineBackend>(t.binding));
    auto agent = agents::make_llm_agent(agent_config("talker", c), recording);
    REQUIRE(agent);
    auto game = games::make_game("chess");
    REQUIRE(game);
    REQUIRE_FALSE((*agent)->new_game({"g", "chess", (*game)->fen(), games::Side::First, "rival"}));
    for (int move = 0; move < 3; ++move) {
      const auto r = wait((*agent)->start_move(move_request(**game)));
      REQUIRE(r.ok());
      REQUIRE((*game)->apply(r.move));
      REQUIRE((*game)->apply((*game)->legal_moves().front()));  // the opponent's reply
    }
    const auto results = recording->results();
    REQUIRE(results.size() == 3);
    for (size_t i = 1; i < results.size(); ++i) {
      INFO("chat " << chat << " move " << i);
      std::vector<int32_t> before = results[i - 1].prompt_tokens;
      before.insert(before.end(), results[i - 1].completion_tokens.begin(),
                    results[i - 1].completion_tokens.end());
      REQUIRE(results[i].prompt_tokens.size() > before.size());
      CHECK(std::equal(before.begin(), before.end(), results[i].prompt_tokens.begin()));
      CHECK(results[i].prompt_text.starts_with(results[i - 1].prompt_text + results[i - 1].text));
      // Every full block of the previous prompt + answer (its last token was never fed) hits.
      const int32_t reusable = (static_cast<int32_t>(before.size()) - 1) / 16 * 16;
      CHECK(results[i].num_cached_tokens >= reusable);
    }
    CHECK(t.engine->metrics().prefix_cache_hits >=
          results[1].num_cached_tokens + results[2].num_cached_tokens);

    // A new game starts a fresh conversation.
    REQUIRE_FALSE((*agent)->new_game({"g2", "chess", "", games::Side::First, "rival"}));
    auto fresh = games::make_game("chess");
    REQUIRE(fresh);
    REQUIRE(wait((*agent)->start_move(move_request(**fresh))).ok());
    CHECK(recording->results().back().prompt_tokens.size() == results[0].prompt_tokens.size());
  }
}

TEST_CASE("Conversation mode: a conversation outgrowing the context restarts from a fresh prompt",
          "[agents]") {
  auto backend = std::make_shared<ScriptedBackend>(std::vector<std::string>{"e4", "d4", "Nf3", "Nc3"});
  backend->max_messages = 4;
  agents::LlmAgentConfig c;
  c.history = agents::HistoryMode::Conversation;
  c.mode = agents::OutputMode::Free;
  auto agent = agents::make_llm_agent(agent_config("talker", c), backend);
  REQUIRE(agent);
  auto game = games::make_game("chess");
  REQUIRE(game);
  REQUIRE_FALSE((*agent)->new_game({"g", "chess", "", games::Side::First, "rival"}));
  for (const char* reply : {"e7e5", "d7d5", "g8f6", "b8c6"}) {
    const auto r = wait((*agent)->start_move(move_request(**game)));
    REQUIRE(r.ok());
    REQUIRE((*game)->apply(r.move));
    REQUIRE((*game)->apply(reply));
  }
  std::vector<size_t> sizes;
  for (const auto& req : backend->requests) sizes.push_back(req.messages.size());
  // system + user; + answer + user; the third move's 6 messages do not fit: afresh, then it grows again.
  CHECK(sizes == std::vector<size_t>{2, 4, 6, 2, 4});
}

TEST_CASE("Conversation mode: 40 plies on a 2048-token model, restarting when the chat outgrows it",
          "[agents][slow]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-f32.gguf");
  double rates[2] = {0, 0};
  for (const auto history : {agents::HistoryMode::None, agents::HistoryMode::Conversation}) {
    auto t = TestModel::open("qwen", path.string(), "chatml", 64);
    agents::LlmAgentConfig c;
    c.model = "qwen";
    c.history = history;
    c.sampling.temperature = 1.0f;
    c.sampling.seed = 11;
    const auto env = t.env();
    auto white = agents::make_llm_agent(agent_config("w", c), env);
    auto black = agents::make_llm_agent(agent_config("b", c), env);
    REQUIRE(white);
    REQUIRE(black);
    auto game = games::make_game("chess");
    REQUIRE(game);
    int plies = 0;
    for (; plies < 40 && !(*game)->outcome().finished(); ++plies) {
      auto& agent = (*game)->side_to_move() == games::Side::First ? *white : *black;
      const auto r = wait(agent->start_move(move_request(**game)));
      INFO("ply " << plies << ": " << (r.failure ? r.failure->message : ""));
      REQUIRE(r.ok());
      REQUIRE((*game)->apply(r.move));
    }
    const auto m = t.engine->metrics();
    rates[history == agents::HistoryMode::Conversation] = m.prefix_hit_rate();
    WARN("history " << agents::to_string(history) << ": " << plies << " plies, " << m.prefix_cache_queries
                    << " prompt tokens, hit rate " << m.prefix_hit_rate());
  }
  CHECK(rates[1] > rates[0]);
}
