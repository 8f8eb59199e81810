// The adjudication referee (see referee.h): worker threads, each with its own UCI engine, scoring
// queued positions from a fresh ucinewgame under the referee agent's search limit.
#include "arena/tournament/referee.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "games/game.h"

namespace arena::tournament {
namespace {

using namespace std::chrono_literals;

// A depth- or nodes-limited search gets this long before its engine counts as hung.
constexpr std::chrono::milliseconds kSearchCap = 5s;

}  // namespace

int32_t mate_score_cp(int32_t mate) {
  if (mate > 0) return 30000 - mate;
  return -30000 - mate;  // mated in |mate| (mate 0: mated now)
}

Referee::Referee(agents::AgentConfig config, int32_t workers, std::function<void()> notify,
                 std::function<std::optional<std::string>(const std::string&)> get_env)
    : config_(std::move(config)), notify_(std::move(notify)) {
  env_.get_env = std::move(get_env);
  const auto& uci = std::get<agents::UciAgentConfig>(config_.params);
  // movetime bounds the search itself; depth and nodes are given a generous cap.
  search_budget_ = uci.movetime ? *uci.movetime + 60ms : kSearchCap;
  // new_game may restart a crashed engine (startup_timeout), then the search and its margin.
  job_timeout_ = uci.startup_timeout + search_budget_ + uci.move_margin + 2s;
  capacity_ = size_t(std::max(workers, 1)) * 16;
  in_flight_.resize(size_t(std::clamp(workers, 1, 16)));
}

std::expected<std::unique_ptr<Referee>, std::string> Referee::start(
    const agents::AgentConfig& config, int32_t workers, std::function<void()> notify,
    std::function<std::optional<std::string>(const std::string&)> get_env) {
  if (!std::holds_alternative<agents::UciAgentConfig>(config.params))
    return std::unexpected(fmt::format("referee '{}' is not a uci agent", config.name));
  std::unique_ptr<Referee> referee(new Referee(config, workers, std::move(notify), std::move(get_env)));
  auto first = agents::make_agent(referee->config_, referee->env_);
  if (!first) return std::unexpected(first.error().message);
  for (const auto& v : games::game_variants())
    if ((*first)->supports(v)) referee->variants_.push_back(v);
  referee->threads_.emplace_back(&Referee::work, referee.get(), size_t{0}, std::move(*first));
  for (size_t i = 1; i < referee->in_flight_.size(); ++i)
    referee->threads_.emplace_back(&Referee::work, referee.get(), i, nullptr);
  return referee;
}

Referee::~Referee() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    for (auto& ticket : in_flight_)
      if (ticket) ticket->cancel();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool Referee::supports(const std::string& variant) const {
  return std::find(variants_.begin(), variants_.end(), variant) != variants_.end();
}

bool Referee::submit(RefereeJob job) {
  {
    std::lock_guard lock(mutex_);
    if (closing_ || !dead_.empty() || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

std::vector<RefereeScore> Referee::take_scores() {
  std::lock_guard lock(mutex_);
  return std::exchange(done_, {});
}

std::string Referee::dead_reason() const {
  std::lock_guard lock(mutex_);
  return dead_;
}

void Referee::work(size_t index, std::unique_ptr<agents::Agent> agent) {
  for (;;) {
    RefereeJob job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (closing_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    RefereeScore result{job.game, job.ply, std::nullopt, "", ""};
    if (!agent) {
      auto made = agents::make_agent(config_, env_);
      if (made) {
        agent = std::move(*made);
      } else {
        // An engine that cannot start now will not start for the next job either.
        std::lock_guard lock(mutex_);
        if (dead_.empty()) dead_ = made.error().message;
        result.error = dead_;
        done_.push_back(result);
        for (auto& queued : queue_)
          done_.push_back(RefereeScore{queued.game, queued.ply, std::nullopt, dead_, ""});
        queue_.clear();
      }
    }
    if (agent) {
      result = score(index, agent, job);
      std::lock_guard lock(mutex_);
      done_.push_back(std::move(result));
    }
    if (notify_) notify_();
  }
}

RefereeScore Referee::score(size_t index, std::unique_ptr<agents::Agent>& agent, const RefereeJob& job) {
  RefereeScore out{job.game, job.ply, std::nullopt, "", ""};
  if (!job.position) {
    out.error = "no position";
    return out;
  }
  if (!agent->supports(job.variant)) {
    out.error = fmt::format("the referee does not play {}", job.variant);
    return out;
  }
  // A fresh game for every position: nothing carries over from what this engine scored before.
  const agents::GameStart start{job.game, job.variant, job.start_fen, job.position->side_to_move(), ""};
  if (auto failure = agent->new_game(start)) {
    out.error = failure->message.empty() ? "the engine refused a new game" : failure->message;
    return out;
  }
  agents::MoveRequest request;
  request.game = job.position;
  request.start_fen = job.start_fen;
  request.moves = job.moves;
  request.deadline = agents::Clock::now() + search_budget_;
  auto ticket = agent->start_move(request);
  if (!ticket) {
    out.error = "the engine returned no ticket";
    return out;
  }
  {
    std::lock_guard lock(mutex_);
    in_flight_[index] = ticket;
    if (closing_) ticket->cancel();
  }
  const auto& uci = std::get<agents::UciAgentConfig>(config_.params);
  const auto give_up = request.deadline + uci.move_margin + 1s;
  std::optional<agents::MoveResult> result;
  while (!(result = ticket->wait_for(50ms)) && agents::Clock::now() < give_up) {
  }
  {
    std::lock_guard lock(mutex_);
    in_flight_[index].reset();
  }
  if (!result) {
    // The agent's own timeouts did not fire: it is not trusted again (a fresh one next time).
    ticket->cancel();
    agent.reset();
    out.error = fmt::format("no score within {} ms", search_budget_.count());
    return out;
  }
  if (result->failure) {
    out.error = result->failure->message;
    return out;
  }
  if (result->mate_in)
    out.cp = mate_score_cp(*result->mate_in);
  else if (result->score_cp)
    out.cp = *result->score_cp;
  else
    out.error = "the engine reported no score";
  if (out.cp) out.best = result->move;
  return out;
}

}  // namespace arena::tournament
