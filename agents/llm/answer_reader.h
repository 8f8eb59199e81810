// Reading a move out of free text (output mode `free`): the first word that is a legal move, in
// UCI or in the game's human notation (SAN / Korean numeric), with move numbers ("12.") and
// punctuation around it ignored. When none is legal, says whether something looked like a move
// (illegal, with the game's reason) or nothing did (unparseable).
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "agents/agent.h"
#include "games/game.h"

namespace agents::llm {

// The legal move (UCI) the text names first, or an Illegal / Unparseable failure saying why.
std::expected<std::string, MoveFailure> find_move(const games::Game& game, std::string_view text);

}  // namespace agents::llm
