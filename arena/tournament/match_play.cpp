// A game in flight (see match.h): playing a move, the referee's score of it, and the endings by
// the rules and adjudication.
#include <fmt/core.h>

#include "arena/tournament/match.h"
#include "arena/tournament/referee_desk.h"
#include "arena/tournament/results_writer.h"
#include "games/janggi/fen.h"
#include "games/janggi/rules.h"

namespace arena::tournament {
namespace {

// The FEN's halfmove clock and fullmove number (the last two fields).
std::pair<int64_t, int64_t> fen_counters(const std::string& fen) {
  const auto last = fen.find_last_of(' ');
  const auto before = last == std::string::npos ? last : fen.find_last_of(' ', last - 1);
  if (before == std::string::npos) return {0, 1};
  return {std::atoll(fen.c_str() + before + 1), std::atoll(fen.c_str() + last + 1)};
}

// The loser of an outcome (0 / 1), or -1 for a draw.
int loser_of(const games::Outcome& o) {
  return o.result == games::Outcome::Result::FirstWins    ? 1
         : o.result == games::Outcome::Result::SecondWins ? 0
                                                          : -1;
}

}  // namespace

void Match::check_start() {
  if (over) return;
  const games::Outcome outcome = game->outcome();
  if (outcome.finished()) finish(loser_of(outcome), outcome.reason, "normal");
}

void Match::play(const std::string& uci, const agents::MoveResult& r, double latency,
                 const std::optional<Substitute>& substitute) {
  const int side = side_to_move();
  std::string human = uci;
  const std::shared_ptr<const agents::LegalMoves> legal = legal_moves();
  for (size_t i = 0; i < legal->uci.size() && i < legal->human.size(); ++i)
    if (legal->uci[i] == uci) human = legal->human[i];
  if (auto ok = game->apply(uci); !ok) return fail(side, agents::FailureKind::Illegal, ok.error().message);
  moves.push_back(uci);
  legal_.reset();
  ++ctx_.moves;
  MoveEvent event{.game = id,
                  .ply = int32_t(moves.size()),
                  .first_side = side == 0,
                  .agent = seats[side].name,
                  .uci = uci,
                  .human = human,
                  .fen = game->fen(),
                  .raw = r.raw,
                  .reasoning = r.reasoning,
                  .latency_s = latency,
                  .ttft_s = r.ttft_seconds,
                  .queue_s = r.queue_seconds,
                  .prompt_tokens = r.num_prompt_tokens,
                  .cached_tokens = r.num_cached_tokens,
                  .completion_tokens = r.num_completion_tokens,
                  .retries = r.num_retries,
                  .clock_ms = clock_ms,
                  .substitute = substitute ? std::optional(substitute->policy) : std::nullopt,
                  .failure = substitute ? std::optional(substitute->failure) : std::nullopt,
                  .score_cp = r.score_cp,
                  .has_referee = ctx_.referee.active(),
                  .referee_cp = std::nullopt,
                  .referee_best = std::nullopt,
                  .replica = r.replica};
  const std::optional<int32_t> player_cp = substitute ? std::nullopt : r.score_cp;
  // With a referee the event and the adjudication wait for its score (settle_referee), unless
  // the rules end the game here anyway.
  if (use_referee && !game->outcome().finished() && !game->claimable_draw().finished()) {
    referee_wait =
        RefereeWait{int32_t(moves.size()), side == 0, player_cp, std::move(event), SteadyClock::now()};
    if (ctx_.referee.submit(*this)) return;
    event = std::move(referee_wait->event);
    referee_wait.reset();
  }
  ctx_.emit(std::move(event));
  check_end(side == 0, player_cp);
}

void Match::settle_referee(const RefereeScore* score) {
  RefereeWait wait = std::move(*referee_wait);
  referee_wait.reset();
  std::optional<int32_t> adjudication_cp = wait.player_cp;
  if (score && score->error.empty() && score->cp) {
    // The referee scores the position after the move for the side to move now: the mover's
    // view, which the rules use (as for the players' own scores), is its negation.
    const int32_t mover_cp = -*score->cp;
    wait.event.referee_cp = mover_cp;
    if (!score->best.empty()) wait.event.referee_best = score->best;
    adjudication_cp = mover_cp;
  } else {
    ctx_.referee.drop(
        *this, score ? score->error : fmt::format("none within {} ms", ctx_.referee.job_timeout().count()));
  }
  ctx_.emit(std::move(wait.event));
  check_end(wait.first_side, adjudication_cp);
}

void Match::check_end(bool first_side, std::optional<int32_t> score_cp) {
  if (over) return;
  const games::Outcome outcome = game->outcome();
  if (outcome.finished()) return finish(loser_of(outcome), outcome.reason, "normal");
  const games::Outcome claim = game->claimable_draw();
  if (claim.finished()) return finish(loser_of(claim), claim.reason, "normal");
  const auto [halfmove, fullmove] = fen_counters(game->fen());
  const auto verdict = adjudication_.update(first_side, score_cp, fullmove, halfmove);
  if (verdict.kind == AdjudicationVerdict::Kind::Draw) return finish(-1, "adjudicated draw", "adjudication");
  if (verdict.kind != AdjudicationVerdict::Kind::None) {
    const int loser = verdict.kind == AdjudicationVerdict::Kind::FirstLoses ? 0 : 1;
    return finish(loser, fmt::format("adjudicated win for {} (resign rule)", seats[1 - loser].name),
                  "adjudication");
  }
  const config::AdjudicationConfig& adj = ctx_.config.adjudication;
  if (adj.max_plies > 0 && int32_t(moves.size()) >= adj.max_plies) {
    if (spec.variant.starts_with("janggi") && adj.janggi_counting) {
      if (auto pos = games::janggi::parse_fen(game->fen())) {
        const games::Outcome counted = games::janggi::counting_outcome(*pos, "max plies");
        return finish(loser_of(counted), counted.reason, "adjudication");
      }
    }
    return finish(-1, "max plies", "adjudication");
  }
}

void Match::finish(int loser, const std::string& why, const std::string& pgn_termination) {
  if (over) return;
  over = true;
  result = loser < 0 ? "1/2-1/2" : loser == 0 ? "0-1" : "1-0";
  reason.assign(why);
  termination.assign(pgn_termination);
  closing_since = SteadyClock::now();
}

void Match::interrupt(const std::string& why) {
  if (over) return;
  over = true;
  result.clear();  // (not `= "*"`: g++ 12 warns falsely about that at -O3)
  result.push_back('*');
  reason.assign(why);
  termination = "unterminated";
  closing_since = SteadyClock::now();
}

GameEnd Match::end_event() const {
  return GameEnd{id,          spec.index, result, reason, termination, int32_t(moves.size()), failure_agent,
                 failure_kind};
}

}  // namespace arena::tournament
