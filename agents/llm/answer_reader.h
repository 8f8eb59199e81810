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

// `text` with every byte that is not part of a valid UTF-8 character replaced by U+FFFD (model
// text can hold broken characters; results and event logs must be valid UTF-8).
std::string to_valid_utf8(std::string_view text);

// The legal move (UCI) the text names first, or an Illegal / Unparseable failure saying why.
std::expected<std::string, MoveFailure> find_move(const games::Game& game, std::string_view text);

}  // namespace agents::llm
