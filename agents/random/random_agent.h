// The `random` agent: plays a uniformly random legal move. The choice depends only on the seed
// and the game so far (start position and moves), so a replayed or resumed game repeats it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "agents/agent.h"

namespace agents {

class RandomAgent final : public Agent {
 public:
  RandomAgent(std::string name, std::vector<std::string> variants, uint64_t seed);

  const std::string& name() const override { return name_; }
  bool supports(std::string_view variant) const override;
  std::optional<MoveFailure> new_game(const GameStart& start) override;
  std::shared_ptr<MoveTicket> start_move(const MoveRequest& request) override;
  void end_game(const GameEnd& end) override;

 private:
  std::string name_;
  std::vector<std::string> variants_;  // empty: every variant games::make_game knows
  uint64_t seed_;
};

}  // namespace agents
