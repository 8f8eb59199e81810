// PGN text of one game rebuilt from its tournament events (game_start, the moves' human notation:
// SAN for chess, Korean numeric notation for janggi, and game_end), for /api/games/{id}.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace arena::server {

// The game as PGN: the Seven Tag Roster (Event, Site, Date, Round, White, Black, Result) plus
// Variant, FEN/SetUp for a non-standard start, Termination, then the movetext. `end` is null for
// a game still in flight (result "*").
std::string game_pgn(const nlohmann::json& start, const std::vector<nlohmann::json>& moves,
                     const nlohmann::json& end);

}  // namespace arena::server
