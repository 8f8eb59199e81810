// A game in flight (see match.h): asking the side to move, taking its answer, the deadline
// policies and clocks, and agent failures as results.
#include "arena/tournament/match.h"

#include <fmt/core.h>

#include <algorithm>

#include "arena/tournament/referee_desk.h"
#include "arena/tournament/results_writer.h"

namespace arena::tournament {

using std::chrono::milliseconds;

namespace {

// How long an unanswered request may run under the `wait` policy before it counts as a timeout.
constexpr milliseconds kWaitCap{600000};

}  // namespace

void MatchContext::emit(EventBody body) {
  if (auto ok = results.emit(std::move(body)); !ok && fatal.empty()) fatal = ok.error();
}

void Seat::cancel() {
  if (!ticket) return;
  ticket->cancel();
  draining = std::move(ticket);
}

Match::Match(MatchContext& context, const ScheduledGame& scheduled, std::unique_ptr<games::Game> position)
    : spec(scheduled),
      id(game_id(scheduled.index)),
      game(std::move(position)),
      ctx_(context),
      adjudication_(context.config.adjudication) {
  if (ctx_.config.clock)
    clock_ms = std::array<int64_t, 2>{ctx_.config.clock->base.count(), ctx_.config.clock->base.count()};
}

std::shared_ptr<const agents::LegalMoves> Match::legal_moves() {
  if (!legal_) legal_ = agents::compute_legal_moves(*game);
  return legal_;
}

void Match::ask(SteadyClock::time_point now, SteadyClock::time_point tick_deadline) {
  const int side = side_to_move();
  Seat& seat = seats[side];
  if (over || seat.ticket || seat.draining || !seat.agent) return;
  agents::MoveRequest request;
  request.game = std::shared_ptr<const games::Game>(game->clone());
  request.legal = legal_moves();
  request.start_fen = spec.start_fen;
  request.moves = moves;
  request.opponent = seats[1 - side].name;
  // The request's deadline: the end of this tick's answer window, or sooner when the mover's clock
  // runs out first. Its priority (smaller is more urgent among equal deadlines, see
  // engine::GenerateRequest) is the mover's time left in milliseconds, so among the requests of
  // one tick the engine serves the games closest to losing on time first; without clocks every
  // request is equally urgent (0).
  seat.deadline = tick_deadline;
  if (clock_ms) {
    request.clock = agents::ClockState{milliseconds((*clock_ms)[0]), milliseconds((*clock_ms)[1]),
                                       ctx_.config.clock->increment};
    seat.deadline = std::min(seat.deadline, now + milliseconds((*clock_ms)[side]));
    request.priority = int32_t(std::clamp<int64_t>((*clock_ms)[side], 0, INT32_MAX));
  }
  request.deadline = seat.deadline;
  request.on_ready = ctx_.on_ready;
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

void Match::step(SteadyClock::time_point now) {
  for (Seat& seat : seats)
    if (seat.draining && seat.draining->ready()) seat.draining.reset();
  if (over) return;
  Seat& seat = seats[side_to_move()];
  if (seat.ticket && seat.ticket->ready()) {
    if (seat.answered_at == SteadyClock::time_point{}) seat.answered_at = now;
    // An answer waits while the referee still scores the move before it.
    if (!referee_wait) answer(seat.ticket->wait(), seat.answered_at);
  }
  // (Deadlines are judged once the referee has settled the move before: a substitute move now
  // would jump the queue.)
  if (!over && !referee_wait) check_deadlines(now);
}

void Match::answer(agents::MoveResult r, SteadyClock::time_point now) {
  const int side = side_to_move();
  Seat& seat = seats[side];
  const double latency = seconds_between(seat.asked_at, now);
  seat.ticket.reset();
  if (!charge_clock(side, latency)) return;
  if (r.resigned) return finish(side, fmt::format("{} resigns", seat.name), "normal");
  if (r.ok()) return play(r.move, r, latency);
  const agents::MoveFailure failure =
      r.failure.value_or(agents::MoveFailure{agents::FailureKind::Unparseable, "no move in the answer"});
  const bool timeout =
      failure.kind == agents::FailureKind::Timeout || failure.kind == agents::FailureKind::Cancelled;
  const config::DeadlinePolicy policy = ctx_.config.deadline_policy;
  if (timeout &&
      (policy == config::DeadlinePolicy::RandomMove || policy == config::DeadlinePolicy::ForfeitMove))
    return play_substitute(failure, latency);
  fail(side, failure.kind, failure.message);
}

void Match::lose_on_time(int side, const std::string& why) {
  seats[side].cancel();
  failure_agent = seats[side].name;
  failure_kind = agents::FailureKind::Timeout;
  finish(side, why, "time forfeit");
}

void Match::check_deadlines(SteadyClock::time_point now) {
  const int side = side_to_move();
  Seat& seat = seats[side];
  if (!seat.ticket || seat.ticket->ready()) return;
  // The clock first: it ends the game whatever the policy.
  if (clock_ms && now - seat.asked_at > milliseconds((*clock_ms)[side])) {
    if (!seat.missed) ++ctx_.deadline_misses;
    return lose_on_time(side, fmt::format("loss on time by {}", seat.name));
  }
  if (now >= seat.deadline && !seat.missed) {
    seat.missed = true;
    ++ctx_.deadline_misses;
    switch (ctx_.config.deadline_policy) {
      case config::DeadlinePolicy::Wait:
        break;
      case config::DeadlinePolicy::RandomMove:
      case config::DeadlinePolicy::ForfeitMove:
        seat.cancel();
        if (const double latency = seconds_between(seat.asked_at, now); charge_clock(side, latency))
          play_substitute({agents::FailureKind::Timeout, "no answer before the deadline"}, latency);
        return;
      case config::DeadlinePolicy::LossOnTime:
        return lose_on_time(side,
                            fmt::format("loss on time by {}: no answer before the deadline", seat.name));
    }
  }
  if (now - seat.asked_at > kWaitCap) {
    seat.cancel();
    fail(
        side, agents::FailureKind::Timeout,
        fmt::format("no answer in {} s", std::chrono::duration_cast<std::chrono::seconds>(kWaitCap).count()));
  }
}

bool Match::charge_clock(int side, double latency) {
  if (!clock_ms) return true;
  int64_t& left = (*clock_ms)[side];
  left -= int64_t(latency * 1000);
  if (left < 0) {
    failure_agent = seats[side].name;
    failure_kind = agents::FailureKind::Timeout;
    finish(side, fmt::format("loss on time by {} ({} ms over)", seats[side].name, -left), "time forfeit");
    return false;
  }
  left += ctx_.config.clock->increment.count();
  return true;
}

void Match::play_substitute(agents::MoveFailure failure, double latency) {
  const std::shared_ptr<const agents::LegalMoves> legal = legal_moves();
  if (legal->uci.empty()) return;  // the game is over by the rules; check_end has seen it
  const config::DeadlinePolicy policy = ctx_.config.deadline_policy;
  std::string move;
  if (policy == config::DeadlinePolicy::ForfeitMove)
    for (const auto& m : legal->uci)
      if (is_pass_move(m)) move = m;
  if (move.empty())
    move = legal->uci[mix_seed(ctx_.config.seed, uint64_t(spec.index), moves.size()) % legal->uci.size()];
  play(move, agents::MoveResult{}, latency, Substitute{policy, std::move(failure)});
}

void Match::fail(int side, agents::FailureKind kind, const std::string& message) {
  const std::string& name = seats[side].name;
  failure_agent = name;
  failure_kind = kind;
  switch (kind) {
    case agents::FailureKind::Illegal:
      return finish(side, fmt::format("illegal move by {}: {}", name, message), "illegal move");
    case agents::FailureKind::Unparseable:
      return finish(side, fmt::format("unparseable answer by {}: {}", name, message), "illegal move");
    case agents::FailureKind::Timeout:
    case agents::FailureKind::Cancelled:
      return finish(side, fmt::format("loss on time by {}: {}", name, message), "time forfeit");
    case agents::FailureKind::Crashed:
      return finish(side, fmt::format("{} crashed: {}", name, message), "abandoned");
    case agents::FailureKind::BackendError:
      return finish(side, fmt::format("backend error for {}: {}", name, message), "abandoned");
  }
}

void Match::cancel_requests() {
  for (Seat& seat : seats) seat.cancel();
}

bool Match::draining() const {
  for (const Seat& seat : seats)
    if (seat.draining && !seat.draining->ready()) return true;
  return false;
}

SteadyClock::time_point Match::next_wake(SteadyClock::time_point wake) const {
  if (over) return wake;
  const int side = side_to_move();
  const Seat& seat = seats[side];
  if (referee_wait && ctx_.referee.active())
    wake = std::min(wake, referee_wait->since + ctx_.referee.job_timeout());
  if (!seat.ticket) return wake;
  if (!seat.missed) wake = std::min(wake, seat.deadline);
  if (clock_ms) wake = std::min(wake, seat.asked_at + milliseconds((*clock_ms)[side] + 1));
  return wake;
}

std::string game_id(int32_t index) {
  return fmt::format("g{:04}", index + 1);
}

bool is_pass_move(const std::string& uci) {
  return uci.size() % 2 == 0 && uci.substr(0, uci.size() / 2) == uci.substr(uci.size() / 2);
}

}  // namespace arena::tournament
