// Test helper: plays one game between two agents through the Agent interface, as the arena would
// (new_game, start_move with a deadline, the move applied to a games::Game, end_game).
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "games/game.h"

namespace agents::test {

struct MatchResult {
  games::Outcome outcome;  // Ongoing when the ply cap was reached
  int plies = 0;
  std::vector<MoveResult> results;
};

// Plays `variant` with `first` moving first, up to `max_plies`; every answer must be a legal move.
inline MatchResult play_match(Agent& first, Agent& second, const std::string& variant, int max_plies,
                              std::chrono::milliseconds per_move = std::chrono::milliseconds(5000)) {
  auto made = games::make_game(variant);
  REQUIRE(made);
  std::shared_ptr<games::Game> game = std::move(*made);
  const std::string start_fen = game->fen();
  REQUIRE_FALSE(first.new_game({"g", variant, start_fen, games::Side::First, second.name()}));
  REQUIRE_FALSE(second.new_game({"g", variant, start_fen, games::Side::Second, first.name()}));
  MatchResult match;
  std::vector<std::string> moves;
  while (match.plies < max_plies && !game->outcome().finished()) {
    Agent& mover = game->side_to_move() == games::Side::First ? first : second;
    MoveRequest request;
    request.game = game->clone();
    request.start_fen = start_fen;
    request.moves = moves;
    request.deadline = Clock::now() + per_move;
    MoveResult result = mover.start_move(request)->wait();
    INFO(mover.name() << " at ply " << match.plies << " in " << game->fen() << ": "
                      << (result.failure ? result.failure->message : result.move));
    REQUIRE(result.ok());
    REQUIRE(game->apply(result.move));
    moves.push_back(result.move);
    match.results.push_back(std::move(result));
    ++match.plies;
  }
  match.outcome = game->outcome();
  first.end_game({"*", match.outcome.reason});
  second.end_game({"*", match.outcome.reason});
  return match;
}

// The score of the side playing first: 1 win, 0.5 draw or unfinished, 0 loss.
inline double first_score(const MatchResult& match) {
  switch (match.outcome.result) {
    case games::Outcome::Result::FirstWins:
      return 1.0;
    case games::Outcome::Result::SecondWins:
      return 0.0;
    default:
      return 0.5;
  }
}

}  // namespace agents::test
