// The pool ratings (pool_ratings.h) as text (Ordo's layout), Markdown, JSON and CSV: in the
// standings files of a run and in `arena ratings`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "arena/tournament/pool_ratings.h"

namespace arena::tournament {

// "412.3", or with a bound ">412.3" / "<-80.0".
std::string rating_text(const PoolRating& r);
// "88.1", or "n/a" without simulations or for a value that is not finite.
std::string error_text(double error);

// The table (rank, player, rating, error, points, games, score, LOS over the next player), the
// first-move advantages, the draw rate, the LOS matrix for up to 12 players, and the warnings.
std::string pool_ratings_text(const PoolRatings& r);
std::string pool_ratings_markdown(const PoolRatings& r);
nlohmann::json pool_ratings_json(const PoolRatings& r);
// One row per player: rank,name,rating,error,bound,anchored,games,wins,draws,losses,points,score,
// opponents_mean (names quoted as CSV needs).
std::string pool_ratings_csv(const PoolRatings& r);

}  // namespace arena::tournament
