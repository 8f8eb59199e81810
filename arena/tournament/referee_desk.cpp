// The runner's side of the adjudication referee (see referee_desk.h).
#include "arena/tournament/referee_desk.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "arena/tournament/match.h"

namespace arena::tournament {

void RefereeDesk::start(const config::TournamentConfig& config, std::function<void()> notify,
                        std::function<std::optional<std::string>(const std::string&)> get_env) {
  const config::AdjudicationConfig& adj = config.adjudication;
  name_ = adj.referee;
  if (!adj.referee_agent || !(adj.draw_move_number || adj.resign_move_count)) {
    if (!adj.referee.empty())
      spdlog::info("adjudication referee '{}' is not started: no draw or resign rule needs it", adj.referee);
    return;
  }
  // One engine per game in flight (at most 4): scoring a position at a low depth takes
  // milliseconds, so a few engines keep up with every game; each is a separate process.
  auto referee = Referee::start(*adj.referee_agent, std::clamp(config.concurrency, 1, 4), std::move(notify),
                                std::move(get_env));
  if (referee)
    referee_ = std::move(*referee);
  else
    spdlog::warn(
        "adjudication referee '{}' could not start ({}); the draw and resign rules use the players' "
        "own scores",
        adj.referee, referee.error());
}

bool RefereeDesk::serves(const std::string& variant, const std::string& game) const {
  if (!referee_ || !referee_->dead_reason().empty()) return false;
  if (referee_->supports(variant)) return true;
  spdlog::debug("game {}: the referee does not play {}; the players' scores adjudicate it", game, variant);
  return false;
}

bool RefereeDesk::submit(Match& m) {
  RefereeJob job{m.id,           int32_t(m.moves.size()),
                 m.spec.variant, m.spec.start_fen,
                 m.moves,        std::shared_ptr<const games::Game>(m.game->clone())};
  if (referee_->submit(std::move(job))) return true;
  const std::string dead = referee_->dead_reason();
  drop(m, dead.empty() ? "its queue is full" : dead);
  return false;
}

void RefereeDesk::drop(Match& m, const std::string& why) {
  if (!m.use_referee) return;
  m.use_referee = false;
  const std::string dead = referee_ ? referee_->dead_reason() : "";
  if (!dead.empty()) {
    if (!dead_logged_)
      spdlog::warn(
          "adjudication referee '{}' stopped working ({}); the draw and resign rules use the players' "
          "own scores from now on",
          name_, dead);
    dead_logged_ = true;
    return;
  }
  spdlog::warn(
      "game {}: the adjudication referee gave no score ({}); the draw and resign rules use the "
      "players' own scores for the rest of this game",
      m.id, why);
}

void RefereeDesk::poll(std::chrono::steady_clock::time_point now,
                       const std::vector<std::unique_ptr<Match>>& games) {
  if (!referee_) return;
  for (const RefereeScore& score : referee_->take_scores())
    for (const auto& g : games)
      if (g->id == score.game && !g->over && g->referee_wait && g->referee_wait->ply == score.ply)
        g->settle_referee(&score);  // a score no game waits for (any more) is dropped
  for (const auto& g : games)
    if (!g->over && g->referee_wait && now - g->referee_wait->since > referee_->job_timeout())
      g->settle_referee(nullptr);
}

std::chrono::milliseconds RefereeDesk::job_timeout() const {
  return referee_ ? referee_->job_timeout() : std::chrono::milliseconds(0);
}

}  // namespace arena::tournament
