// The tournament runner (see runner.h). Work in progress: the schedule and tick loop land next.
#include "arena/tournament/runner.h"

namespace arena::tournament {

std::expected<RunSummary, std::string> run_tournament(const config::TournamentConfig& tournament,
                                                      std::vector<Participant> participants,
                                                      std::vector<EngineSource> engines,
                                                      const RunOptions& options) {
  (void)tournament;
  (void)engines;
  (void)options;
  if (participants.size() < 2) return std::unexpected("a tournament needs at least two agents");
  return std::unexpected("the tournament runner is not implemented yet");
}

}  // namespace arena::tournament
