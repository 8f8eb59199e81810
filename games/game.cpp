// The game factory (variant name -> rule module) and the names of the variant-neutral enums.
#include "games/game.h"

#include "games/chess/chess_game.h"
#include "games/janggi/janggi_game.h"

namespace games {

std::string_view to_string(Outcome::Result result) {
  switch (result) {
    case Outcome::Result::Ongoing:
      return "ongoing";
    case Outcome::Result::FirstWins:
      return "first_wins";
    case Outcome::Result::SecondWins:
      return "second_wins";
    case Outcome::Result::Draw:
      return "draw";
  }
  return "ongoing";
}

std::string_view to_string(GameError::Kind kind) {
  switch (kind) {
    case GameError::Kind::InvalidInput:
      return "invalid input";
    case GameError::Kind::InvalidPosition:
      return "invalid position";
    case GameError::Kind::InvalidMove:
      return "invalid move";
    case GameError::Kind::GameOver:
      return "game over";
    case GameError::Kind::UnknownVariant:
      return "unknown variant";
  }
  return "invalid input";
}

std::vector<std::string> game_variants() {
  return {"chess", "janggi", "janggimodern", "janggicasual", "janggitraditional"};
}

bool is_janggi(std::string_view variant) {
  for (const auto& name : game_variants())
    if (name == variant) return name.starts_with("janggi");
  return false;
}

std::expected<std::unique_ptr<Game>, GameError> make_game(std::string_view variant, std::string_view fen) {
  if (variant == "chess") return chess::make_chess_game(fen);
  if (is_janggi(variant)) return janggi::make_janggi_game(variant, fen);
  std::string known;
  for (const auto& name : game_variants()) known += (known.empty() ? "" : ", ") + name;
  return std::unexpected(
      GameError{"unknown game variant '" + std::string(variant) + "' (known: " + known + ")",
                GameError::Kind::UnknownVariant});
}

}  // namespace games
