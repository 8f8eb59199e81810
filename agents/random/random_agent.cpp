// RandomAgent: a seeded uniform choice among the legal moves (see random_agent.h).
#include "agents/random/random_agent.h"

#include <algorithm>
#include <random>
#include <utility>

#include "agents/agent_support.h"
#include "games/game.h"

namespace agents {

RandomAgent::RandomAgent(std::string name, std::vector<std::string> variants, uint64_t seed)
    : name_(std::move(name)), variants_(std::move(variants)), seed_(seed) {}

bool RandomAgent::supports(std::string_view variant) const {
  return variant_allowed(variants_, variant);
}

std::optional<MoveFailure> RandomAgent::new_game(const GameStart&) {
  return std::nullopt;
}

void RandomAgent::end_game(const GameEnd&) {}

std::shared_ptr<MoveTicket> RandomAgent::start_move(const MoveRequest& request) {
  const auto started = Clock::now();
  MoveResult result;
  if (!request.game) {
    result.failure = MoveFailure{FailureKind::BackendError, "no position was given"};
    return resolved_ticket(std::move(result), request);
  }
  const std::shared_ptr<const LegalMoves> moves = legal_moves(request);
  const std::vector<std::string>& legal = moves->uci;
  if (legal.empty()) {
    result.failure = MoveFailure{FailureKind::BackendError, "no legal move: the game is over"};
  } else {
    const GameLine line = game_line(request);
    std::mt19937_64 rng(game_seed(seed_, line.start_fen, line.moves));
    std::uniform_int_distribution<size_t> pick(0, legal.size() - 1);
    result.move = legal[pick(rng)];
    result.raw = result.move;
  }
  result.total_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return resolved_ticket(std::move(result), request);
}

}  // namespace agents
