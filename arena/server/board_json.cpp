// board_json: BoardView -> JSON.
#include "arena/server/board_json.h"

namespace arena::server {

namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

nlohmann::json board_json(const games::BoardView& view, bool with_legal_moves) {
  nlohmann::json squares = nlohmann::json::array();
  for (const games::SquareView& sq : view.squares)
    squares.push_back(sq.piece ? std::string(1, sq.piece->letter) : std::string());
  nlohmann::json j = {
      {"variant", view.variant},
      {"fen", view.fen},
      {"files", view.files},
      {"ranks", view.ranks},
      {"squares", std::move(squares)},
      {"side_names", {view.side_names[0], view.side_names[1]}},
      {"side_to_move", view.side_to_move == games::Side::First ? "first" : "second"},
      {"ply", view.ply},
      {"last_move", optional_json(view.last_move)},
      {"last_move_human", optional_json(view.last_move_human)},
      {"check_square", optional_json(view.check_square)},
      {"outcome",
       {{"result", std::string(games::to_string(view.outcome.result))}, {"reason", view.outcome.reason}}},
      {"claimable_draw", optional_json(view.claimable_draw)},
  };
  if (games::is_janggi(view.variant)) {
    j["generals_facing"] = view.generals_facing;
    j["points"] = view.points ? nlohmann::json{(*view.points)[0], (*view.points)[1]} : nlohmann::json();
  }
  if (with_legal_moves) {
    j["legal_moves"] = view.legal_moves;
    j["legal_moves_human"] = view.legal_moves_human;
  }
  return j;
}

}  // namespace arena::server
