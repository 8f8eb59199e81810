// Helpers shared by the agents (see agent_support.h).
#include "agents/agent_support.h"

#include <algorithm>

#include "games/game.h"

namespace agents {

GameLine game_line(const MoveRequest& request) {
  GameLine line;
  if (!request.game) return line;
  line.variant = request.game->variant();
  line.start_fen = request.start_fen.empty() ? request.game->start_fen() : request.start_fen;
  line.moves = request.moves.empty() && request.game->ply() > 0 ? request.game->moves() : request.moves;
  return line;
}

uint64_t game_seed(uint64_t seed, const std::string& start_fen, const std::vector<std::string>& moves) {
  uint64_t h = 0xcbf29ce484222325ull ^ (seed * 0x9E3779B97F4A7C15ull);  // FNV-1a over the text
  auto mix = [&](std::string_view text) {
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    h = (h ^ ' ') * 0x100000001b3ull;
  };
  mix(start_fen);
  for (const auto& m : moves) mix(m);
  h ^= h >> 33;  // finalize (murmur3 fmix64) so nearby inputs give unrelated streams
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

bool variant_allowed(const std::vector<std::string>& allowed, std::string_view variant) {
  const auto known = games::game_variants();
  if (std::find(known.begin(), known.end(), variant) == known.end()) return false;
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), variant) != allowed.end();
}

}  // namespace agents
