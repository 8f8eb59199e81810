// The move-quality block of the standings (move_quality.h): per agent its ACPL, accuracy and
// inaccuracy / mistake / blunder counts, then per variant and per game phase, in standings.txt,
// standings.md and standings.json. Every function gives nothing when the run has no referee.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "arena/tournament/standings.h"

namespace arena::tournament {

// The terminal block (after the agents' numbers), or "".
std::string move_quality_text(const Standings& standings);
// The Markdown table, or "".
std::string move_quality_markdown(const Standings& standings);
// Sets out["move_quality"]: {agent: {moves, acpl, accuracy, move_accuracy, inaccuracies, mistakes,
// blunders, variants: {variant: {...}}, phases: {phase: {...}}}}; nothing without a referee.
void add_move_quality_json(nlohmann::json& out, const Standings& standings);
// The `standings` event's move-quality fields of `agent`; null without a referee.
std::optional<StandingsQuality> move_quality_entry(const Standings& standings, const std::string& agent);

}  // namespace arena::tournament
