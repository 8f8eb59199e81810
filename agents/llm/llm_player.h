// LlmPlayer: the Agent behind `type: llm` (made by make_llm_agent, which checks its config). Each
// move is a small state machine driven by backend callbacks (no thread of its own): constrained =
// one request; free = a request per attempt until a legal move or max_retries, then on_failure;
// reason = a free request stopped at the marker, then a constrained request whose prompt extends
// the first one (prompt + reasoning + marker). In conversation mode the accepted turns of the game
// stay in the chat, and the next request continues the last one's tokens.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/backend/backend.h"
#include "agents/llm/position_text.h"
#include "agents/llm/prompt_template.h"

namespace agents::llm {

// The prompts of one game family.
struct PromptPair {
  PromptTemplate system;
  PromptTemplate move;
};

class LlmPlayer final : public Agent {
 public:
  // `prompts` holds a pair for each game family the agent may play ("chess", "janggi").
  LlmPlayer(std::string name, std::vector<std::string> variants, LlmAgentConfig config,
            std::map<std::string, PromptPair> prompts, std::shared_ptr<backend::LlmBackend> backend);
  ~LlmPlayer() override;

  const std::string& name() const override { return name_; }
  bool supports(std::string_view variant) const override;
  std::optional<MoveFailure> new_game(const GameStart& start) override;
  std::shared_ptr<MoveTicket> start_move(const MoveRequest& request) override;
  void end_game(const GameEnd& end) override;

  struct Job;
  struct State;

 private:
  std::string name_;
  std::vector<std::string> variants_;
  std::shared_ptr<State> state_;  // shared with in-flight callbacks
};

}  // namespace agents::llm
