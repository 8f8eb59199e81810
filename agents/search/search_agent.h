// The `search` agent: the built-in alpha-beta (search.h) behind the Agent interface. Each move is
// searched on the agent's own worker thread, so start_move returns at once; the search stops at
// its depth or node limit, at its movetime, shortly before the request's deadline, or on cancel.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/worker_thread.h"

namespace agents {

class SearchAgent final : public Agent {
 public:
  SearchAgent(std::string name, std::vector<std::string> variants, SearchAgentConfig config);
  ~SearchAgent() override;

  const std::string& name() const override { return name_; }
  bool supports(std::string_view variant) const override;
  std::optional<MoveFailure> new_game(const GameStart& start) override;
  std::shared_ptr<MoveTicket> start_move(const MoveRequest& request) override;
  void end_game(const GameEnd& end) override;

 private:
  std::string name_;
  std::vector<std::string> variants_;
  SearchAgentConfig config_;
  std::atomic<bool> closing_{false};
  std::mutex mutex_;
  std::shared_ptr<std::atomic<bool>> current_cancel_;  // the move being searched
  WorkerThread worker_;                                // last: joined before the rest goes
};

}  // namespace agents
