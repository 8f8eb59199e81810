// The built-in search: it finds mates and free material in chess and janggi, honours its depth,
// node, movetime, deadline and cancel limits, answers asynchronously, and at depth 2 scores at
// least 90% against the random agent. A [slow] case measures its speed in nodes per second.
#include "agents/search/search_agent.h"

#include <catch2/catch.hpp>
#include <iostream>
#include <random>

#include "agents/random/random_agent.h"
#include "agents/search/search.h"
#include "tests/agents/agent_match.h"

namespace {

using agents::search::search_position;
using agents::search::SearchLimits;
using namespace std::chrono_literals;

SearchLimits depth_limit(int depth) {
  SearchLimits limits;
  limits.depth = depth;
  return limits;
}

agents::MoveRequest request_for(const std::string& variant, const std::string& fen,
                                std::chrono::milliseconds budget = 5000ms) {
  auto game = games::make_game(variant, fen);
  REQUIRE(game);
  agents::MoveRequest request;
  request.start_fen = (*game)->fen();
  request.game = std::move(*game);
  request.deadline = agents::Clock::now() + budget;
  return request;
}

}  // namespace

TEST_CASE("search finds a chess mate in one and reports it", "[agents][search]") {
  auto report = search_position("chess", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", {}, depth_limit(3));
  REQUIRE(report);
  CHECK(report->best_move == "a1a8");
  REQUIRE(report->mate_in);
  CHECK(*report->mate_in == 1);
  CHECK(report->pv.front() == "a1a8");
}

TEST_CASE("search takes free material in chess and janggi", "[agents][search]") {
  auto chess = search_position("chess", "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", {}, depth_limit(2));
  REQUIRE(chess);
  CHECK(chess->best_move == "d2d5");
  CHECK(chess->score > 300);  // a rook up
  auto janggi = search_position("janggi", "9/3k5/9/9/9/r8/9/9/4K4/R8 w - - 0 1", {}, depth_limit(2));
  REQUIRE(janggi);
  CHECK(janggi->best_move == "a1a5");
  CHECK(janggi->score > 1000);
}

TEST_CASE("search replays the game's moves and refuses bad input", "[agents][search]") {
  auto after = search_position("chess", "", {"e2e4", "e7e5", "g1f3"}, depth_limit(2));
  REQUIRE(after);
  auto game = games::make_game("chess");
  REQUIRE(game);
  for (const char* m : {"e2e4", "e7e5", "g1f3"}) REQUIRE((*game)->apply(m));
  const auto legal = (*game)->legal_moves();
  CHECK(std::find(legal.begin(), legal.end(), after->best_move) != legal.end());

  auto janggi = search_position("janggimodern", "", {"b1c3", "b10c8"}, depth_limit(2));
  REQUIRE(janggi);
  CHECK_FALSE(janggi->best_move.empty());

  CHECK_FALSE(search_position("chess", "", {"e2e5"}, depth_limit(2)));
  CHECK_FALSE(search_position("xiangqi", "", {}, depth_limit(2)));
  CHECK_FALSE(search_position("chess", "not a fen", {}, depth_limit(2)));
  // Fool's mate: the game is over, there is nothing to search.
  auto over = search_position("chess", "", {"f2f3", "e7e5", "g2g4", "d8h4"}, depth_limit(2));
  REQUIRE_FALSE(over);
  CHECK(over.error().find("over") != std::string::npos);
}

TEST_CASE("search honours node and time limits", "[agents][search]") {
  SearchLimits nodes;
  nodes.nodes = 5000;
  auto by_nodes = search_position("chess", "", {}, nodes);
  REQUIRE(by_nodes);
  CHECK(by_nodes->nodes <= 5000);
  CHECK(by_nodes->stopped);
  CHECK_FALSE(by_nodes->best_move.empty());

  SearchLimits timed;
  timed.stop = agents::search::Clock::now() + 100ms;
  const auto started = agents::search::Clock::now();
  auto by_time = search_position("janggi", "", {}, timed);
  const auto took = agents::search::Clock::now() - started;
  REQUIRE(by_time);
  CHECK(by_time->stopped);
  CHECK(by_time->depth >= 2);
  CHECK(took < 300ms);
}

TEST_CASE("search agent answers asynchronously, before the deadline, and on cancel", "[agents][search]") {
  agents::SearchAgentConfig config;
  config.depth = std::nullopt;  // only the deadline or movetime stops it
  agents::SearchAgent agent("search", {}, config);
  REQUIRE(agent.supports("chess"));
  REQUIRE(agent.supports("janggitraditional"));
  REQUIRE_FALSE(agent.supports("shogi"));

  // The deadline: resolved before it, with a legal move.
  {
    auto request = request_for("chess", "", 300ms);
    std::atomic<int> calls{0};
    request.on_ready = [&] { ++calls; };
    const auto deadline = request.deadline;
    const auto started = agents::Clock::now();
    auto ticket = agent.start_move(request);
    CHECK(agents::Clock::now() - started < 50ms);  // returns at once
    const auto result = ticket->wait();
    CHECK(agents::Clock::now() <= deadline);
    REQUIRE(result.ok());
    CHECK(result.score_cp.has_value());
    CHECK(result.raw.find("nodes") != std::string::npos);
    // on_ready runs right after the result is stored, possibly just after wait() returned.
    for (int i = 0; i < 100 && calls == 0; ++i) std::this_thread::sleep_for(10ms);
    CHECK(calls == 1);
  }
  // Cancel: resolves quickly with Cancelled.
  {
    auto request = request_for("janggi", "", 60000ms);
    auto ticket = agent.start_move(request);
    std::this_thread::sleep_for(50ms);
    const auto cancelled_at = agents::Clock::now();
    ticket->cancel();
    auto result = ticket->wait_for(2000ms);
    REQUIRE(result);
    CHECK(agents::Clock::now() - cancelled_at < 500ms);
    REQUIRE(result->failure);
    CHECK(result->failure->kind == agents::FailureKind::Cancelled);
  }
  // A clock: a thirtieth of the mover's time (Black's here: 3 s -> 100 ms), not the whole of it.
  {
    auto request =
        request_for("chess", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 60000ms);
    request.clock = agents::ClockState{60000ms, 3000ms, 0ms};
    const auto started = agents::Clock::now();
    const auto result = agent.start_move(request)->wait();
    const auto took = agents::Clock::now() - started;
    CHECK(result.ok());
    CHECK(took >= 90ms);
    CHECK(took < 400ms);
  }
  // Movetime.
  {
    agents::SearchAgentConfig timed;
    timed.depth = std::nullopt;
    timed.movetime = 100ms;
    agents::SearchAgent quick("quick", {"chess"}, timed);
    CHECK_FALSE(quick.supports("janggi"));
    const auto started = agents::Clock::now();
    const auto result = quick.start_move(request_for("chess", ""))->wait();
    CHECK(agents::Clock::now() - started < 400ms);
    CHECK(result.ok());
  }
}

TEST_CASE("search agent is deterministic for a seed", "[agents][search]") {
  agents::SearchAgentConfig config;
  config.depth = 2;
  agents::SearchAgent a("a", {}, config), b("b", {}, config);
  auto request = request_for("janggi", "");
  CHECK(a.start_move(request)->wait().move == b.start_move(request)->wait().move);
  request.deadline = {};  // no deadline given: the depth limit alone ends the search
  const auto result = a.start_move(request)->wait();
  CHECK(result.ok());
  CHECK(result.raw.rfind("depth 2 ", 0) == 0);
}

TEST_CASE("search returns a legal move in random positions of every variant", "[agents][search]") {
  std::mt19937_64 rng(42);
  for (const std::string variant : {"chess", "janggi", "janggimodern", "janggicasual", "janggitraditional"}) {
    int searched = 0;
    for (int game_number = 0; game_number < 4; ++game_number) {
      auto made = games::make_game(variant);
      REQUIRE(made);
      auto& game = **made;
      std::vector<std::string> moves;
      for (int ply = 0; ply < 160 && !game.outcome().finished(); ++ply) {
        const auto legal = game.legal_moves();
        if (ply % 8 == 7) {  // search every eighth position with a small node budget
          SearchLimits limits;
          limits.nodes = 1000;
          limits.seed = uint64_t(ply);
          auto report = search_position(variant, "", moves, limits);
          INFO(variant << " " << game.fen());
          REQUIRE(report);
          CHECK(std::find(legal.begin(), legal.end(), report->best_move) != legal.end());
          ++searched;
        }
        const std::string move = legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)];
        REQUIRE(game.apply(move));
        moves.push_back(move);
      }
    }
    CHECK(searched > 20);
  }
}

namespace {

// Plays `games` games of `variant` between a depth-2 search and a random mover, alternating
// colours; returns the search's score fraction.
double search_vs_random(const std::string& variant, int games, int max_plies) {
  agents::SearchAgentConfig config;
  config.depth = 2;
  double score = 0;
  for (int g = 0; g < games; ++g) {
    agents::SearchAgent search("search", {}, config);
    agents::RandomAgent random("random", {}, uint64_t(1000 + g));
    const bool search_first = g % 2 == 0;
    auto match = search_first ? agents::test::play_match(search, random, variant, max_plies)
                              : agents::test::play_match(random, search, variant, max_plies);
    const double first = agents::test::first_score(match);
    score += search_first ? first : 1.0 - first;
    INFO("game " << g << ": " << match.outcome.reason << " after " << match.plies << " plies");
    CHECK(match.outcome.finished());
  }
  return score / games;
}

}  // namespace

TEST_CASE("search at depth 2 scores at least 90% against random", "[agents][search]") {
  CHECK(search_vs_random("chess", 20, 600) >= 0.9);
  CHECK(search_vs_random("janggi", 20, 600) >= 0.9);
}

TEST_CASE("search speed in nodes per second", "[agents][search][slow][bench]") {
  for (const std::string variant : {"chess", "janggi"}) {
    SearchLimits limits;
    limits.depth = 64;
    limits.stop = agents::search::Clock::now() + 3s;
    auto report = search_position(variant, "", {}, limits);
    REQUIRE(report);
    const double nps = double(report->nodes) / report->seconds;
    std::cout << "search " << variant << " start position: depth " << report->depth << ", " << report->nodes
              << " nodes in " << report->seconds << " s = " << int64_t(nps) << " nodes/s\n";
    CHECK(nps > 100000);
  }
}
