// The built-in prompts of an LLM agent that names none: a system prompt per game (the piece legend
// and the answer format live here, so the prefix cache serves them once for every agent and move)
// and a compact per-move template (board, last move, legal moves). The embedded default model is
// trained on exactly these texts: change them only with the model.
#pragma once

#include <string>
#include <string_view>

namespace agents::llm {

// The default system prompt for a game family ("chess" or "janggi").
const std::string& default_system_prompt(std::string_view game);
// The default per-move template for a game family.
const std::string& default_move_template(std::string_view game);

}  // namespace agents::llm
