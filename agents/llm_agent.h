// An LLM agent: a prompt over the serving engine that answers "your move" for any game.
// It shows the model the board as text and the legal moves, and constrains the output to
// exactly one legal move (engine-side token trie), so the answer is always playable.
// The system prompt is the same for every request of every agent with the same persona, so the
// engine's prefix cache serves it once for all of them.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "engine/api.h"
#include "engine/tokenizer/chat_template.h"
#include "games/game.h"

namespace agents {

struct LlmAgentConfig {
  std::string name = "llm";
  std::string system_prompt;        // empty: default_system_prompt(variant)
  engine::SamplingParams sampling;  // max_tokens is raised to fit the longest legal move
  bool human_notation = true;       // SAN / Korean numeric moves; false: UCI
};

// The built-in system prompt for a variant ("chess", "janggi", ...).
std::string default_system_prompt(const std::string& variant);

class LlmAgent {
 public:
  // An agent asking `engine`, formatting prompts with `chat` (both must outlive it).
  LlmAgent(engine::Engine& engine, const engine::ChatTemplate& chat, LlmAgentConfig config);

  const std::string& name() const { return config_.name; }

  // The chat messages the agent sends for `game` (exposed for tests and logs).
  std::vector<engine::ChatMessage> messages(const games::Game& game) const;

  // Submits a move request for the side to move in `game`; an error when the engine refuses it.
  std::expected<engine::RequestHandle, engine::Error> request_move(const games::Game& game,
                                                                   int32_t priority = 0) const;

  // The legal UCI move a finished request stands for, or why it is unusable (cancelled,
  // engine error, or text that is not a legal move: recorded by the caller as a forfeit).
  std::expected<std::string, std::string> read_move(const games::Game& game,
                                                    const engine::GenerateResult& result) const;

 private:
  engine::Engine& engine_;
  const engine::ChatTemplate& chat_;
  LlmAgentConfig config_;
};

}  // namespace agents
