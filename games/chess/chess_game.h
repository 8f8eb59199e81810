// Chess behind the variant-neutral games::Game interface.
#pragma once

#include <expected>
#include <memory>
#include <string_view>

#include "games/game.h"

namespace games::chess {

// A chess game from `fen` (the standard start position when empty), or what is wrong with the FEN.
std::expected<std::unique_ptr<Game>, GameError> make_chess_game(std::string_view fen);

}  // namespace games::chess
