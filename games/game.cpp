// The game factory: variant name -> rule module.
#include "games/game.h"

#include "games/chess/chess_game.h"
#include "games/janggi/janggi_game.h"

namespace games {

std::vector<std::string> game_variants() {
  return {"chess", "janggi", "janggimodern", "janggicasual", "janggitraditional"};
}

std::expected<std::unique_ptr<Game>, GameError> make_game(std::string_view variant, std::string_view fen) {
  if (variant == "chess") return chess::make_chess_game(fen);
  if (variant.starts_with("janggi")) {
    for (const auto& name : game_variants())
      if (name == variant) return janggi::make_janggi_game(variant, fen);
  }
  std::string known;
  for (const auto& name : game_variants()) known += (known.empty() ? "" : ", ") + name;
  return std::unexpected(
      GameError{"unknown game variant '" + std::string(variant) + "' (known: " + known + ")"});
}

}  // namespace games
