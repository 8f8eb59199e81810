// The runner's part of a game (see runner_impl.h): asking the side to move, playing or
// rejecting its answer, the deadline policies and clocks, agent failures as results, and the
// rules' and adjudication's endings.
#include "arena/tournament/runner_impl.h"

namespace arena::tournament::detail {

std::pair<int64_t, int64_t> fen_counters(const std::string& fen) {
  const auto last = fen.find_last_of(' ');
  const auto before = last == std::string::npos ? last : fen.find_last_of(' ', last - 1);
  if (before == std::string::npos) return {0, 1};
  return {std::atoll(fen.c_str() + before + 1), std::atoll(fen.c_str() + last + 1)};
}

const char* policy_name(config::DeadlinePolicy p) {
  switch (p) {
    case config::DeadlinePolicy::Wait:
      return "wait";
    case config::DeadlinePolicy::RandomMove:
      return "random_move";
    case config::DeadlinePolicy::ForfeitMove:
      return "forfeit_move";
    case config::DeadlinePolicy::LossOnTime:
      return "loss_on_time";
  }
  return "wait";
}

bool is_pass_move(const std::string& uci) {
  return uci.size() % 2 == 0 && uci.substr(0, uci.size() / 2) == uci.substr(uci.size() / 2);
}

void Runner::ask(LiveGame& g, SteadyClock::time_point now, SteadyClock::time_point tick_deadline) {
  const int side = g.side_to_move();
  Seat& seat = g.seats[side];
  if (seat.ticket || seat.draining || !seat.agent) return;
  agents::MoveRequest request;
  request.game = std::shared_ptr<const games::Game>(g.game->clone());
  request.start_fen = g.spec.start_fen;
  request.moves = g.moves;
  request.opponent = g.seats[1 - side].name;
  // The request's deadline: the end of this tick's answer window, or sooner when the mover's clock
  // runs out first. Its priority (smaller is more urgent among equal deadlines, see
  // engine::GenerateRequest) is the mover's time left in milliseconds, so among the requests of
  // one tick the engine serves the games closest to losing on time first; without clocks every
  // request is equally urgent (0).
  seat.deadline = tick_deadline;
  if (g.clock_ms) {
    request.clock = agents::ClockState{milliseconds((*g.clock_ms)[0]), milliseconds((*g.clock_ms)[1]),
                                       config_.clock->increment};
    seat.deadline = std::min(seat.deadline, now + milliseconds((*g.clock_ms)[side]));
    request.priority = int32_t(std::clamp<int64_t>((*g.clock_ms)[side], 0, INT32_MAX));
  }
  request.deadline = seat.deadline;
  const std::shared_ptr<Notifier> notifier = notifier_;
  request.on_ready = [notifier] { notifier->notify(); };
  seat.asked_at = now;
  seat.answered_at = {};
  seat.missed = false;
  seat.ticket = seat.agent->start_move(request);
  if (!seat.ticket) {
    agents::MoveResult broken;
    broken.failure = agents::MoveFailure{agents::FailureKind::BackendError, "the agent returned no ticket"};
    seat.ticket = agents::resolved_ticket(broken, request);
  }
}

void Runner::play_move(LiveGame& g, const std::string& uci, const agents::MoveResult& r, double latency,
                       const std::string& substitute, const std::string& failure_kind,
                       const std::string& failure_message) {
  const int side = g.side_to_move();
  std::string human = uci;
  const auto legal = g.game->legal_moves();
  const auto humans = g.game->legal_moves_human();
  for (size_t i = 0; i < legal.size() && i < humans.size(); ++i)
    if (legal[i] == uci) human = humans[i];
  if (auto ok = g.game->apply(uci); !ok) {
    fail_agent(g, side, agents::FailureKind::Illegal, ok.error().message);
    return;
  }
  g.moves.push_back(uci);
  ++moves_this_run_;
  nlohmann::json failure = nullptr;
  if (!failure_kind.empty()) failure = {{"kind", failure_kind}, {"message", failure_message}};
  nlohmann::json event = {
      {"type", "move"},
      {"game", g.id},
      {"ply", int32_t(g.moves.size())},
      {"side", side == 0 ? "first" : "second"},
      {"agent", g.seats[side].name},
      {"uci", uci},
      {"human", human},
      {"fen", g.game->fen()},
      {"raw", r.raw},
      {"reasoning", r.reasoning},
      {"latency_s", latency},
      {"ttft_s", r.ttft_seconds},
      {"queue_s", r.queue_seconds},
      {"prompt_tokens", r.num_prompt_tokens},
      {"cached_tokens", r.num_cached_tokens},
      {"completion_tokens", r.num_completion_tokens},
      {"retries", r.num_retries},
      {"clock_ms", g.clock_ms ? nlohmann::json(*g.clock_ms) : nlohmann::json(nullptr)},
      {"substitute", substitute.empty() ? nlohmann::json(nullptr) : nlohmann::json(substitute)},
      {"failure", failure},
      {"score_cp", r.score_cp ? nlohmann::json(*r.score_cp) : nlohmann::json(nullptr)}};
  const std::optional<int32_t> player_cp = substitute.empty() ? r.score_cp : std::nullopt;
  if (referee_) event["referee_cp"] = nullptr;
  // With a referee the event and the adjudication wait for its score (settle_referee), unless
  // the rules end the game here anyway.
  if (g.use_referee && !g.game->outcome().finished() && !g.game->claimable_draw().finished()) {
    g.referee_wait = LiveGame::RefereeWait{int32_t(g.moves.size()), side == 0, player_cp, std::move(event),
                                           SteadyClock::now()};
    if (ask_referee(g)) return;
    event = std::move(g.referee_wait->event);
    g.referee_wait.reset();
  }
  if (auto ok = emit(std::move(event)); !ok) fatal_ = ok.error();
  check_end(g, side == 0, player_cp);
}

bool Runner::ask_referee(LiveGame& g) {
  RefereeJob job{g.id,           int32_t(g.moves.size()),
                 g.spec.variant, g.spec.start_fen,
                 g.moves,        std::shared_ptr<const games::Game>(g.game->clone())};
  if (referee_->submit(std::move(job))) return true;
  const std::string dead = referee_->dead_reason();
  drop_referee(g, dead.empty() ? "its queue is full" : dead);
  return false;
}

void Runner::drop_referee(LiveGame& g, const std::string& why) {
  if (!g.use_referee) return;
  g.use_referee = false;
  const std::string dead = referee_ ? referee_->dead_reason() : "";
  if (!dead.empty()) {
    if (!referee_dead_logged_)
      spdlog::warn(
          "adjudication referee '{}' stopped working ({}); the draw and resign rules use the players' "
          "own scores from now on",
          config_.adjudication.referee, dead);
    referee_dead_logged_ = true;
    return;
  }
  spdlog::warn(
      "game {}: the adjudication referee gave no score ({}); the draw and resign rules use the "
      "players' own scores for the rest of this game",
      g.id, why);
}

void Runner::settle_referee(LiveGame& g, const RefereeScore* score) {
  LiveGame::RefereeWait wait = std::move(*g.referee_wait);
  g.referee_wait.reset();
  std::optional<int32_t> adjudication_cp = wait.player_cp;
  if (score && score->error.empty() && score->cp) {
    // The referee scores the position after the move for the side to move now: the mover's
    // view, which the rules use (as for the players' own scores), is its negation.
    const int32_t mover_cp = -*score->cp;
    wait.event["referee_cp"] = mover_cp;
    adjudication_cp = mover_cp;
  } else {
    drop_referee(g, score ? score->error
                          : fmt::format("none within {} ms", referee_ ? referee_->job_timeout().count() : 0));
  }
  if (auto ok = emit(std::move(wait.event)); !ok) fatal_ = ok.error();
  check_end(g, wait.first_side, adjudication_cp);
}

void Runner::poll_referee(SteadyClock::time_point now) {
  if (!referee_) return;
  for (const RefereeScore& score : referee_->take_scores())
    for (auto& g : active_)
      if (g->id == score.game && !g->over && g->referee_wait && g->referee_wait->ply == score.ply)
        settle_referee(*g, &score);  // a score no game waits for (any more) is dropped
  for (auto& g : active_)
    if (!g->over && g->referee_wait && now - g->referee_wait->since > referee_->job_timeout())
      settle_referee(*g, nullptr);
}

void Runner::fail_agent(LiveGame& g, int side, agents::FailureKind kind, const std::string& message) {
  const std::string& name = g.seats[side].name;
  g.failure_agent = name;
  g.failure_kind = agents::to_string(kind);
  g.failure_message = message;
  switch (kind) {
    case agents::FailureKind::Illegal:
      g.finish(side, fmt::format("illegal move by {}: {}", name, message), "illegal move");
      break;
    case agents::FailureKind::Unparseable:
      g.finish(side, fmt::format("unparseable answer by {}: {}", name, message), "illegal move");
      break;
    case agents::FailureKind::Timeout:
    case agents::FailureKind::Cancelled:
      g.finish(side, fmt::format("loss on time by {}: {}", name, message), "time forfeit");
      break;
    case agents::FailureKind::Crashed:
      g.finish(side, fmt::format("{} crashed: {}", name, message), "abandoned");
      break;
    case agents::FailureKind::BackendError:
      g.finish(side, fmt::format("backend error for {}: {}", name, message), "abandoned");
      break;
  }
}

void Runner::play_substitute(LiveGame& g, const std::string& policy, const std::string& failure_kind,
                             const std::string& failure_message, double latency) {
  const auto legal = g.game->legal_moves();
  if (legal.empty()) return;  // the game is over by the rules; check_end has seen it
  std::string move;
  if (policy == "forfeit_move")
    for (const auto& m : legal)
      if (is_pass_move(m)) move = m;
  if (move.empty())
    move = legal[mix_seed(config_.seed, uint64_t(g.spec.index), g.moves.size()) % legal.size()];
  play_move(g, move, agents::MoveResult{}, latency, policy, failure_kind, failure_message);
}

bool Runner::charge_clock(LiveGame& g, int side, double latency) {
  if (!g.clock_ms) return true;
  int64_t& left = (*g.clock_ms)[side];
  left -= int64_t(latency * 1000);
  if (left < 0) {
    g.failure_agent = g.seats[side].name;
    g.failure_kind = "timeout";
    g.finish(side, fmt::format("loss on time by {} ({} ms over)", g.seats[side].name, -left), "time forfeit");
    return false;
  }
  left += config_.clock->increment.count();
  return true;
}

void Runner::handle_result(LiveGame& g, agents::MoveResult r, SteadyClock::time_point now) {
  const int side = g.side_to_move();
  Seat& seat = g.seats[side];
  const double latency = seconds_between(seat.asked_at, now);
  seat.ticket.reset();
  if (!charge_clock(g, side, latency)) return;
  if (r.resigned) {
    g.finish(side, fmt::format("{} resigns", seat.name), "normal");
    return;
  }
  if (r.ok()) {
    play_move(g, r.move, r, latency, "", "", "");
    return;
  }
  const agents::MoveFailure failure =
      r.failure.value_or(agents::MoveFailure{agents::FailureKind::Unparseable, "no move in the answer"});
  const bool timeout =
      failure.kind == agents::FailureKind::Timeout || failure.kind == agents::FailureKind::Cancelled;
  if (timeout && (config_.deadline_policy == config::DeadlinePolicy::RandomMove ||
                  config_.deadline_policy == config::DeadlinePolicy::ForfeitMove)) {
    play_substitute(g, policy_name(config_.deadline_policy), agents::to_string(failure.kind), failure.message,
                    latency);
    return;
  }
  fail_agent(g, side, failure.kind, failure.message);
}

void Runner::check_deadlines(LiveGame& g, SteadyClock::time_point now) {
  const int side = g.side_to_move();
  Seat& seat = g.seats[side];
  if (!seat.ticket || seat.ticket->ready()) return;
  // The clock first: it ends the game whatever the policy.
  if (g.clock_ms && now - seat.asked_at > milliseconds((*g.clock_ms)[side])) {
    if (!seat.missed) ++deadline_misses_;
    seat.ticket->cancel();
    seat.draining = std::move(seat.ticket);
    g.failure_agent = seat.name;
    g.failure_kind = "timeout";
    g.finish(side, fmt::format("loss on time by {}", seat.name), "time forfeit");
    return;
  }
  if (now >= seat.deadline && !seat.missed) {
    seat.missed = true;
    ++deadline_misses_;
    switch (config_.deadline_policy) {
      case config::DeadlinePolicy::Wait:
        break;
      case config::DeadlinePolicy::RandomMove:
      case config::DeadlinePolicy::ForfeitMove:
        seat.ticket->cancel();
        seat.draining = std::move(seat.ticket);
        if (const double latency = seconds_between(seat.asked_at, now); charge_clock(g, side, latency))
          play_substitute(g, policy_name(config_.deadline_policy), "timeout", "no answer before the deadline",
                          latency);
        return;
      case config::DeadlinePolicy::LossOnTime:
        seat.ticket->cancel();
        seat.draining = std::move(seat.ticket);
        g.failure_agent = seat.name;
        g.failure_kind = "timeout";
        g.finish(side, fmt::format("loss on time by {}: no answer before the deadline", seat.name),
                 "time forfeit");
        return;
    }
  }
  if (now - seat.asked_at > kWaitCap) {
    seat.ticket->cancel();
    seat.draining = std::move(seat.ticket);
    fail_agent(
        g, side, agents::FailureKind::Timeout,
        fmt::format("no answer in {} s", std::chrono::duration_cast<std::chrono::seconds>(kWaitCap).count()));
  }
}

void Runner::check_end(LiveGame& g, bool first_side, std::optional<int32_t> score_cp) {
  if (g.over) return;
  const games::Outcome outcome = g.game->outcome();
  auto decide = [&](const games::Outcome& o, const std::string& reason, const std::string& termination) {
    const int loser = o.result == games::Outcome::Result::FirstWins    ? 1
                      : o.result == games::Outcome::Result::SecondWins ? 0
                                                                       : -1;
    g.finish(loser, reason, termination);
  };
  if (outcome.finished()) return decide(outcome, outcome.reason, "normal");
  const games::Outcome claim = g.game->claimable_draw();
  if (claim.finished()) return decide(claim, claim.reason, "normal");
  const auto [halfmove, fullmove] = fen_counters(g.game->fen());
  const auto verdict = g.adjudication->update(first_side, score_cp, fullmove, halfmove);
  if (verdict.kind == AdjudicationVerdict::Kind::Draw)
    return g.finish(-1, "adjudicated draw", "adjudication");
  if (verdict.kind != AdjudicationVerdict::Kind::None) {
    const int loser = verdict.kind == AdjudicationVerdict::Kind::FirstLoses ? 0 : 1;
    return g.finish(loser, fmt::format("adjudicated win for {} (resign rule)", g.seats[1 - loser].name),
                    "adjudication");
  }
  if (config_.adjudication.max_plies > 0 && int32_t(g.moves.size()) >= config_.adjudication.max_plies) {
    if (g.spec.variant.starts_with("janggi") && config_.adjudication.janggi_counting) {
      if (auto pos = games::janggi::parse_fen(g.game->fen())) {
        const games::Outcome counted = games::janggi::counting_outcome(*pos, "max plies");
        return decide(counted, counted.reason, "adjudication");
      }
    }
    return g.finish(-1, "max plies", "adjudication");
  }
}

}  // namespace arena::tournament::detail
