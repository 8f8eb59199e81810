// games::BoardView as JSON for the board view (REST and WebSocket): the typed view the games
// layer gives, serialised with nlohmann in the server's own shape (docs/protocol.md).
#pragma once

#include <nlohmann/json.hpp>

#include "games/game.h"

namespace arena::server {

// {"variant","fen","files","ranks","squares":[FEN letter or "" per square, top rank first],
//  "side_names":[..2],"side_to_move":"first"|"second","ply","last_move","last_move_human",
//  "check_square","outcome":{"result","reason"},"claimable_draw", janggi: "generals_facing",
//  "points":[cho, han]} plus, when `with_legal_moves`, "legal_moves" and "legal_moves_human".
nlohmann::json board_json(const games::BoardView& view, bool with_legal_moves = false);

}  // namespace arena::server
