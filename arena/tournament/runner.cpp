// The tournament runner (see runner.h): set-up and resume, the agent pool, the tick loop, and the
// end of a run. A game's own work (asking, answering, deadlines, clocks, endings) is match.h's;
// the referee protocol is referee_desk.h's and the result files are results_writer.h's.
//
// The tick loop, on the caller's thread: at every tick each game whose side to move has no
// request in progress asks its agent (start_move with the tick's deadline), so the LLM requests
// of one tick reach their engine together. Agents resolve their tickets on their own threads and
// notify one condition variable; the loop wakes for a resolved ticket, the next tick or the
// earliest deadline, whichever comes first (no polling). A game's moves, clocks and deadline
// policy only ever touch that game, so a slow agent holds up nobody else.
#include "arena/tournament/runner.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "arena/build_info.h"
#include "arena/tournament/runner_impl.h"

namespace arena::tournament {
namespace detail {

using std::chrono::milliseconds;

namespace {

// How long a cancelled agent may take to resolve before its instance is abandoned.
constexpr milliseconds kDrainCap{30000};

}  // namespace

Runner::Runner(const config::TournamentConfig& config, std::vector<Participant> participants,
               std::vector<EngineSource> engines, const RunOptions& options)
    : config_(config),
      participants_(std::move(participants)),
      options_(options),
      sampler_(std::move(engines)),
      notifier_(std::make_shared<Notifier>()),
      status_(options.quiet, ::isatty(STDOUT_FILENO) == 1),
      results_(options.output_dir, options.observer, options.now, PgnContext{.clock = config.clock}),
      match_context_{config, results_, referee_, [notifier = notifier_] { notifier->notify(); }, 0, 0, {}} {}

Runner::~Runner() {
  referee_.stop();
  // Agents abandoned with a request in progress go last, after everything that might use them.
  closing_.clear();
  abandoned_.clear();
}

std::expected<std::vector<SchedulePlayer>, std::string> Runner::make_players() {
  pool_.resize(participants_.size());
  std::vector<SchedulePlayer> players;
  for (size_t p = 0; p < participants_.size(); ++p) {
    const Participant& part = participants_[p];
    names_.push_back(part.name);
    if (!part.make) return std::unexpected(fmt::format("agent '{}' has no way to be made", part.name));
    auto agent = part.make();
    if (!agent) return std::unexpected(fmt::format("agent '{}': {}", part.name, agent.error().message));
    SchedulePlayer player{part.name, {}};
    for (const auto& v : config_.games) {
      const bool listed = part.variants.empty() ||
                          std::find(part.variants.begin(), part.variants.end(), v) != part.variants.end();
      if (listed && (*agent)->supports(v)) player.variants.push_back(v);
    }
    players.push_back(std::move(player));
    pool_[p].push_back(std::move(*agent));
  }
  return players;
}

std::expected<void, std::string> Runner::set_up() {
  if (participants_.size() < 2) return std::unexpected(std::string("a tournament needs at least two agents"));
  if (config_.games.empty()) return std::unexpected(std::string("the tournament names no game to play"));
  if (config_.concurrency < 1) return std::unexpected(std::string("concurrency must be at least 1"));
  if (config_.tick.count() <= 0) return std::unexpected(std::string("the tick must be positive"));
  const std::shared_ptr<Notifier> notifier = notifier_;
  referee_.start(
      config_, [notifier] { notifier->notify(); }, options_.get_env);
  auto players = make_players();
  if (!players) return std::unexpected(players.error());
  auto schedule = make_schedule(config_, *players);
  if (!schedule) return std::unexpected(schedule.error());
  schedule_ = std::move(*schedule);
  // Output folder, event log (read back when resuming), result files.
  auto existing = results_.open(options_.resume);
  if (!existing) return std::unexpected(existing.error());
  if (auto ok = check_resume(*existing); !ok) return ok;
  const GameBook& book = results_.book();
  for (const auto& g : schedule_)
    if (!book.finished(g.index)) pending_.push_back(g.index);
  if (auto ok = sampler_.open_csv(options_.output_dir / "metrics.csv"); !ok) return ok;
  if (auto ok = results_.rewrite_pgn(); !ok) return ok;
  return results_.emit(TournamentStart{
      options_.config_hash, options_.arena_version.empty() ? build::version : options_.arena_version,
      config_.seed, config_.games, names_, sampler_.models(), int64_t(schedule_.size()), !existing->empty(),
      book.num_finished()});
}

std::expected<void, std::string> Runner::check_resume(const std::vector<Event>& existing) {
  for (const Event& e : existing) {
    const auto* start = std::get_if<TournamentStart>(&e.body);
    if (!start) continue;
    std::vector<std::string> diffs;
    if (!start->config_hash.empty() && !options_.config_hash.empty() &&
        start->config_hash != options_.config_hash)
      diffs.push_back(fmt::format("config hash {} (now {})", start->config_hash, options_.config_hash));
    if (start->seed != config_.seed)
      diffs.push_back(fmt::format("seed {} (now {})", start->seed, config_.seed));
    if (start->num_games != int64_t(schedule_.size()))
      diffs.push_back(fmt::format("{} games (now {})", start->num_games, schedule_.size()));
    if (start->agents != names_)
      diffs.push_back(fmt::format("agents {} (now {})", nlohmann::json(start->agents).dump(),
                                  nlohmann::json(names_).dump()));
    if (start->variants != config_.games)
      diffs.push_back(fmt::format("games {} (now {})", nlohmann::json(start->variants).dump(),
                                  nlohmann::json(config_.games).dump()));
    if (diffs.empty()) return {};  // the first start describes the run
    std::string all;
    for (const auto& d : diffs) all += (all.empty() ? "" : "; ") + d;
    return std::unexpected(fmt::format("cannot resume '{}': the tournament changed since it began: {}",
                                       options_.output_dir.string(), all));
  }
  return {};
}

std::unique_ptr<agents::Agent> Runner::take_agent(int32_t participant, std::string* error) {
  auto& free = pool_[participant];
  if (!free.empty()) {
    auto agent = std::move(free.back());
    free.pop_back();
    return agent;
  }
  auto made = participants_[participant].make();
  if (!made) {
    *error = made.error().message;
    return nullptr;
  }
  return std::move(*made);
}

void Runner::start_game(int32_t index) {
  const ScheduledGame& spec = schedule_[index];
  auto game = games::make_game(spec.variant, spec.start_fen);
  if (!game) {
    match_context_.fatal = fmt::format("game {}: {}", game_id(index), game.error().message);
    return;
  }
  auto g = std::make_unique<Match>(match_context_, spec, std::move(*game));
  g->use_referee = referee_.serves(spec.variant, g->id);
  if (auto ok = results_.emit(GameStart{g->id, index, spec.pair, spec.variant, names_[spec.first],
                                        names_[spec.second], g->game->fen(), spec.opening, g->clock_ms});
      !ok) {
    match_context_.fatal = ok.error();
    return;
  }
  seat_agents(*g);
  g->check_start();
  active_.push_back(std::move(g));
}

void Runner::seat_agents(Match& g) {
  for (int side = 0; side < 2; ++side) {
    Seat& seat = g.seats[side];
    seat.participant = side == 0 ? g.spec.first : g.spec.second;
    seat.name = names_[seat.participant];
  }
  for (int side = 0; side < 2 && !g.over; ++side) {
    Seat& seat = g.seats[side];
    std::string error;
    seat.agent = take_agent(seat.participant, &error);
    if (seat.agent) {
      agents::GameStart start{g.id, g.spec.variant, g.game->fen(),
                              side == 0 ? games::Side::First : games::Side::Second, g.seats[1 - side].name};
      if (auto failure = seat.agent->new_game(start))
        error = failure->message.empty() ? "new game refused" : failure->message;
    }
    if (!error.empty()) {
      g.failure_agent = seat.name;
      g.failure_kind = agents::FailureKind::Crashed;
      g.finish(side, fmt::format("{} could not start: {}", seat.name, error), "abandoned");
    }
  }
}

std::expected<void, std::string> Runner::close_game(std::unique_ptr<Match> g) {
  g->cancel_requests();
  if (g->referee_wait) {  // the game ended (clock, interruption) before the referee answered
    if (auto ok = results_.emit(std::move(g->referee_wait->event)); !ok) return ok;
    g->referee_wait.reset();
  }
  if (auto ok = results_.emit(g->end_event()); !ok) return ok;
  results_.sync();
  if (g->result != "*") {
    ++done_this_run_;
    const Standings st = standings();
    if (auto ok = results_.game_finished(g->spec.index, st); !ok) return ok;
    if (st.sprt && st.sprt->decision != SprtDecision::Continue) sprt_stopped_ = true;
    spdlog::debug("game {} ({} vs {}): {} {{{}}}", g->id, g->seats[0].name, g->seats[1].name, g->result,
                  g->reason);
  }
  closing_.push_back(std::move(g));
  release_closing(false);
  return {};
}

void Runner::release_closing(bool force) {
  const auto now = SteadyClock::now();
  for (auto it = closing_.begin(); it != closing_.end();) {
    Match& g = **it;
    if (g.draining() && !force && now - g.closing_since < kDrainCap) {
      ++it;
      continue;
    }
    for (Seat& seat : g.seats) {
      if (!seat.agent) continue;
      if (seat.draining && !seat.draining->ready()) {
        spdlog::warn("agent {} did not stop its move in game {}; a fresh instance takes its seat", seat.name,
                     g.id);
        abandoned_.push_back(std::move(seat.agent));
        continue;
      }
      seat.agent->end_game(agents::GameEnd{g.result, g.reason});
      pool_[seat.participant].push_back(std::move(seat.agent));
    }
    it = closing_.erase(it);
  }
}

SteadyClock::time_point Runner::next_wake(SteadyClock::time_point next_tick) const {
  SteadyClock::time_point wake = next_tick;
  for (const auto& g : active_) wake = g->next_wake(wake);
  return wake;
}

Standings Runner::standings(bool final) const {
  std::optional<config::SprtConfig> sprt;
  if (config_.sprt && participants_.size() == 2) sprt = config_.sprt;
  std::optional<PoolRatingOptions> pool;
  // The standings after each game are computed on the tick loop: fewer simulations there.
  if (options_.ratings)
    pool = pool_options(*options_.ratings, config_.seed, final ? INT32_MAX : kLiveSimulations);
  return compute_standings(names_, results_.book(), int32_t(schedule_.size()), sprt, pool);
}

StatusInfo Runner::status_info() const {
  StatusInfo info;
  info.done = results_.book().num_finished();
  info.total = int32_t(schedule_.size());
  info.in_flight = int32_t(active_.size());
  info.done_this_run = done_this_run_;
  info.elapsed_s = seconds_between(run_start_, SteadyClock::now());
  info.moves = match_context_.moves;
  info.deadline_misses = match_context_.deadline_misses;
  info.engines = sampler_.latest();
  return info;
}

void Runner::tick(SteadyClock::time_point now) {
  ++ticks_;
  const milliseconds move_time = config_.move_deadline.count() > 0 ? config_.move_deadline : config_.tick;
  const auto tick_deadline = now + move_time;
  for (auto& g : active_) g->ask(now, tick_deadline);
  const double t = seconds_between(run_start_, now);
  const int64_t misses = match_context_.deadline_misses;
  sampler_.sample(t, ticks_, misses);
  if (t - last_metrics_event_ >= 1.0) {
    last_metrics_event_ = t;
    for (const auto& s : sampler_.latest()) (void)results_.emit(MetricsSampler::to_event(s, misses), false);
    for (auto& r : replica_sampler_.sample()) (void)results_.emit(std::move(r), false);
  }
  next_tick_ += config_.tick;
  if (next_tick_ <= now) next_tick_ = now + config_.tick;
}

void Runner::collect(SteadyClock::time_point now) {
  referee_.poll(now, active_);
  for (auto& g : active_) g->step(now);
  for (size_t i = 0; i < active_.size();) {
    if (!active_[i]->over) {
      ++i;
      continue;
    }
    auto g = std::move(active_[i]);
    active_.erase(active_.begin() + std::ptrdiff_t(i));
    if (auto ok = close_game(std::move(g)); !ok) match_context_.fatal = ok.error();
  }
  release_closing(false);
}

std::expected<RunSummary, std::string> Runner::run() {
  if (auto ok = set_up(); !ok) return std::unexpected(ok.error());
  next_tick_ = SteadyClock::now();
  const std::string& fatal = match_context_.fatal;
  auto stopping = [&] { return options_.stop && options_.stop->load(); };
  bool interrupted = false;
  while (fatal.empty()) {
    if (stopping()) {
      interrupted = true;
      break;
    }
    if (sprt_stopped_) break;
    while (int32_t(active_.size()) < config_.concurrency && !pending_.empty() && fatal.empty()) {
      const int32_t index = pending_.front();
      pending_.pop_front();
      start_game(index);
    }
    if (active_.empty() && pending_.empty()) break;
    {
      std::lock_guard lock(notifier_->mutex);
      notifier_->pending = false;
    }
    if (const auto now = SteadyClock::now(); now >= next_tick_) tick(now);
    collect(SteadyClock::now());
    status_.update(status_info());
    if (!fatal.empty() || (active_.empty() && pending_.empty())) continue;
    // Sleep until an answer, the next tick or the earliest deadline.
    std::unique_lock lock(notifier_->mutex);
    notifier_->cv.wait_until(lock, next_wake(next_tick_), [&] { return notifier_->pending || stopping(); });
  }
  const RunSummary summary = wind_down(interrupted);
  if (!fatal.empty()) return std::unexpected(fatal);
  return summary;
}

RunSummary Runner::wind_down(bool interrupted) {
  std::string& fatal = match_context_.fatal;
  // Games still in flight are recorded unfinished (SIGINT, an SPRT decision, an I/O error).
  const std::string why = interrupted ? "interrupted" : sprt_stopped_ ? "sprt decided" : "run aborted";
  while (!active_.empty()) {
    auto g = std::move(active_.back());
    active_.pop_back();
    g->interrupt(why);
    if (auto ok = close_game(std::move(g)); !ok && fatal.empty()) fatal = ok.error();
  }
  // Give cancelled agents a moment to stop, then hand every instance back.
  const auto drain_until = SteadyClock::now() + std::chrono::seconds(5);
  while (!closing_.empty() && SteadyClock::now() < drain_until) {
    release_closing(false);
    if (closing_.empty()) break;
    std::unique_lock lock(notifier_->mutex);
    notifier_->cv.wait_until(lock, std::min(drain_until, SteadyClock::now() + milliseconds(100)),
                             [&] { return notifier_->pending; });
    notifier_->pending = false;
  }
  release_closing(true);
  referee_.stop();  // its engines stop now, not when the runner goes
  const Standings st = standings(/*final=*/true);
  RunSummary summary;
  summary.games_total = int32_t(schedule_.size());
  summary.games_done = st.games_done;
  summary.interrupted = interrupted || !fatal.empty();
  summary.sprt_stopped = sprt_stopped_;
  (void)results_.emit(TournamentEnd{summary.interrupted, summary.games_done, sprt_stopped_,
                                    match_context_.deadline_misses, ticks_});
  if (auto ok = results_.finish(st); !ok && fatal.empty())
    fatal = ok.error() + "; resume the run to write them";
  status_.update(status_info(), true);
  status_.finish();
  if (!options_.quiet) std::fputs(standings_text(st).c_str(), stdout);
  return summary;
}

}  // namespace detail

std::expected<RunSummary, std::string> run_tournament(const config::TournamentConfig& tournament,
                                                      std::vector<Participant> participants,
                                                      std::vector<EngineSource> engines,
                                                      const RunOptions& options) {
  try {
    detail::Runner runner(tournament, std::move(participants), std::move(engines), options);
    return runner.run();
  } catch (const std::exception& e) {
    return std::unexpected(fmt::format("the tournament stopped on an unexpected error: {}", e.what()));
  }
}

}  // namespace arena::tournament
