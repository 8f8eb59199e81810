// The random agent: always a legal move, the same one for the same seed and game, different
// games for different seeds, and a clear failure when there is no move.
#include "agents/random/random_agent.h"

#include <catch2/catch.hpp>
#include <set>

#include "tests/agents/agent_match.h"

TEST_CASE("random agent plays legal moves, seeded", "[agents][random]") {
  agents::RandomAgent a("a", {}, 1), b("b", {}, 2), a2("a2", {}, 1);
  CHECK(a.supports("chess"));
  CHECK(a.supports("janggicasual"));
  CHECK_FALSE(a.supports("go"));
  for (const std::string variant : {"chess", "janggi"}) {
    const auto first = agents::test::play_match(a, b, variant, 60);
    const auto again = agents::test::play_match(a2, b, variant, 60);
    REQUIRE(first.results.size() == again.results.size());
    std::set<std::string> distinct;
    for (size_t i = 0; i < first.results.size(); ++i) {
      CHECK(first.results[i].move == again.results[i].move);
      distinct.insert(first.results[i].move);
    }
    CHECK(distinct.size() > 20);
    const auto other = agents::test::play_match(b, a, variant, 60);
    bool differs = false;
    for (size_t i = 0; i < std::min(first.results.size(), other.results.size()); ++i)
      differs = differs || first.results[i].move != other.results[i].move;
    CHECK(differs);
  }
}

TEST_CASE("random agent restricted to variants, and with no move to play", "[agents][random]") {
  agents::RandomAgent only_janggi("r", {"janggi"}, 0);
  CHECK(only_janggi.supports("janggi"));
  CHECK_FALSE(only_janggi.supports("chess"));

  auto game = games::make_game("chess");
  REQUIRE(game);
  for (const char* m : {"f2f3", "e7e5", "g2g4", "d8h4"}) REQUIRE((*game)->apply(m));
  agents::MoveRequest request;
  request.game = std::move(*game);
  request.deadline = agents::Clock::now() + std::chrono::seconds(1);
  bool called = false;
  request.on_ready = [&] { called = true; };
  const auto result = agents::RandomAgent("r", {}, 0).start_move(request)->wait();
  CHECK(called);
  REQUIRE(result.failure);
  CHECK_FALSE(result.ok());
}
