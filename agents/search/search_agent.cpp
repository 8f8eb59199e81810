// SearchAgent: runs search_position() on a worker thread per move (see search_agent.h).
#include "agents/search/search_agent.h"

#include <fmt/format.h>

#include <algorithm>

#include "agents/agent_support.h"
#include "agents/search/search.h"

namespace agents {
namespace {

// The engine-style line that reports a search ("depth 3 score cp 25 nodes 1234 nps ... pv ...").
std::string info_line(const search::SearchReport& r) {
  std::string line = fmt::format("depth {} score ", r.depth);
  line += r.mate_in ? fmt::format("mate {}", *r.mate_in) : fmt::format("cp {}", r.score);
  line += fmt::format(" nodes {} nps {} time {}", r.nodes,
                      r.seconds > 0 ? int64_t(double(r.nodes) / r.seconds) : 0, int64_t(r.seconds * 1000));
  if (!r.pv.empty()) line += " pv";
  for (const auto& m : r.pv) line += " " + m;
  return line;
}

}  // namespace

SearchAgent::SearchAgent(std::string name, std::vector<std::string> variants, SearchAgentConfig config)
    : name_(std::move(name)), variants_(std::move(variants)), config_(std::move(config)) {}

SearchAgent::~SearchAgent() {
  closing_ = true;
  std::lock_guard lock(mutex_);
  if (current_cancel_) *current_cancel_ = true;
  // worker_ is destroyed first (declared last): it finishes the jobs posted, which see closing_.
}

bool SearchAgent::supports(std::string_view variant) const {
  return search::search_supports(variant) && variant_allowed(variants_, variant);
}

std::optional<MoveFailure> SearchAgent::new_game(const GameStart& start) {
  if (!supports(start.variant))
    return MoveFailure{FailureKind::BackendError, "the search agent does not play " + start.variant};
  return std::nullopt;
}

void SearchAgent::end_game(const GameEnd&) {}

std::shared_ptr<MoveTicket> SearchAgent::start_move(const MoveRequest& request) {
  const auto started = Clock::now();
  auto ticket = std::make_shared<MoveTicket>();
  ticket->set_on_ready(request.on_ready);
  if (!request.game) {
    MoveResult result;
    result.failure = MoveFailure{FailureKind::BackendError, "no position was given"};
    ticket->resolve(std::move(result));
    return ticket;
  }
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  ticket->set_cancel_hook([cancel] { *cancel = true; });

  search::SearchLimits limits;
  limits.depth = config_.depth;
  limits.nodes = config_.nodes;
  GameLine line = game_line(request);
  limits.seed = game_seed(config_.seed, line.start_fen, line.moves);
  // Stop a little before the deadline (a tenth of the time left, at most 50 ms), and at movetime
  // or the clock's share for this move.
  // (A request without a deadline gets a minute.)
  const auto deadline =
      request.deadline == Clock::time_point{} ? started + std::chrono::seconds(60) : request.deadline;
  const auto left = std::max<Clock::duration>(deadline - started, Clock::duration::zero());
  auto stop = deadline - std::min<Clock::duration>(std::chrono::milliseconds(50), left / 10);
  if (config_.movetime) {
    stop = std::min(stop, started + *config_.movetime);
  } else if (request.clock) {
    // On a clock, a move gets a thirtieth of the time left plus most of the increment.
    const auto& c = *request.clock;
    const auto remaining =
        request.game->side_to_move() == games::Side::First ? c.first_remaining : c.second_remaining;
    stop = std::min(stop, started + remaining / 30 + c.increment * 3 / 4);
  }
  limits.stop = stop;

  worker_.post([this, ticket, cancel, limits, started, line = std::move(line)]() mutable {
    MoveResult result;
    if (closing_ || *cancel) {
      result.failure = MoveFailure{FailureKind::Cancelled, "cancelled before the search began"};
      ticket->resolve(std::move(result));
      return;
    }
    {
      std::lock_guard lock(mutex_);
      current_cancel_ = cancel;
    }
    limits.cancel = cancel.get();
    auto report = search::search_position(line.variant, line.start_fen, line.moves, limits);
    {
      std::lock_guard lock(mutex_);
      current_cancel_.reset();
    }
    result.total_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    result.prompt = fmt::format("position fen {} moves {}", line.start_fen, fmt::join(line.moves, " "));
    if (!report) {
      result.failure = MoveFailure{FailureKind::BackendError, report.error()};
    } else if (report->cancelled) {
      result.failure = MoveFailure{FailureKind::Cancelled, "cancelled during the search"};
      result.raw = info_line(*report);
    } else if (report->best_move.empty()) {
      result.failure = MoveFailure{FailureKind::BackendError, "the search found no move"};
    } else {
      result.move = report->best_move;
      result.raw = info_line(*report);
      if (report->mate_in)
        result.mate_in = report->mate_in;
      else
        result.score_cp = report->score;
    }
    ticket->resolve(std::move(result));
  });
  return ticket;
}

}  // namespace agents
