// The position as an LLM agent's prompt shows it: a compact board diagram, moves in the agent's
// notation, the clock, and the game's moves so far. Fills the PromptValues of a move template.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/llm/prompt_template.h"
#include "games/game.h"

namespace agents::llm {

// "chess" for chess, "janggi" for every janggi variant.
std::string game_family(std::string_view variant);
// The notation an agent uses for `variant` when its config names none (san / korean).
Notation default_notation(std::string_view variant);
// Whether `notation` can write moves of `variant` (san: chess only; korean: janggi only).
bool notation_fits(Notation notation, std::string_view variant);

// The board from the FEN, one line per rank from the top ("8 rnbqkbnr"), '.' for an empty square,
// then the file letters: about a third of the tokens of Game::render_text().
std::string compact_board(const games::Game& game);
// The legal moves in `notation`, index-aligned with game.legal_moves().
std::vector<std::string> legal_moves_in(const games::Game& game, Notation notation);
// The moves as one line; in Korean notation the moves from one point share it ("02마83 73, 08마87
// 77, 한수쉼": about 40% fewer tokens), other notations space separated.
std::string grouped_moves(const std::vector<std::string>& moves, Notation notation);
// Both clocks ("White 4:32, Black 3:10, +2s"), or "none".
std::string clock_text(const games::Game& game, const std::optional<ClockState>& clock);

// The moves played so far in `notation`: "1. e4 e5 2. Nf3" (numbered from the start position's
// move number and side), or "none".
std::string history_text(const games::Game& game, Notation notation);
// The last move in `notation`, or "none".
std::string last_move_text(const games::Game& game, Notation notation);

// Which of the placeholders that try moves on the board (tactics_text.h) to fill: they cost a few
// board copies each, so only for the templates that use them.
struct Hints {
  bool captures = true;
  bool escapes = true;
};

// The values of every placeholder for the move `request` asks (illegal_reason left empty; captures
// and escapes only as `hints` asks).
PromptValues position_values(const MoveRequest& request, Notation notation, Hints hints = {});

}  // namespace agents::llm
