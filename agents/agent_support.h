// Small helpers the built-in and UCI agents share: the game a MoveRequest describes as a start
// FEN and UCI moves, a seed derived from that game, and the variant filter of an agent's config.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"

namespace agents {

// The game of a request as its starting FEN and the UCI moves since: the request's own fields,
// or its game's when the request leaves them empty.
struct GameLine {
  std::string variant;
  std::string start_fen;
  std::vector<std::string> moves;
};
GameLine game_line(const MoveRequest& request);

// A 64-bit hash of `seed` and the game so far (start FEN and moves), for seeded choices.
uint64_t game_seed(uint64_t seed, const std::string& start_fen, const std::vector<std::string>& moves);

// Whether `variant` is one games::make_game knows and one of `allowed` (or `allowed` is empty).
bool variant_allowed(const std::vector<std::string>& allowed, std::string_view variant);

}  // namespace agents
