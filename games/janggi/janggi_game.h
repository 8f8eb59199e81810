// Janggi behind the variant-neutral games::Game interface.
#pragma once

#include <expected>
#include <memory>
#include <string_view>

#include "games/game.h"

namespace games::janggi {

// A janggi game under the rule set `variant` ("janggi", "janggimodern", "janggicasual",
// "janggitraditional", as Fairy-Stockfish defines them) from `fen` (the start position when
// empty), or what is wrong.
std::expected<std::unique_ptr<Game>, GameError> make_janggi_game(std::string_view variant,
                                                                 std::string_view fen);

}  // namespace games::janggi
