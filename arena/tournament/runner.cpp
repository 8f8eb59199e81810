// The tournament runner (see runner.h): set-up and resume, the tick loop, and the end of a run.
//
// The tick loop, on the caller's thread: at every tick each game whose side to move has no
// request in progress asks its agent (start_move with the tick's deadline), so the LLM requests
// of one tick reach their engine together. Agents resolve their tickets on their own threads and
// notify one condition variable; the loop wakes for a resolved ticket, the next tick or the
// earliest deadline, whichever comes first (no polling). A game's moves, clocks and deadline
// policy only ever touch that game, so a slow agent holds up nobody else.
#include "arena/tournament/runner.h"

#include "arena/tournament/runner_impl.h"

namespace arena::tournament {
namespace detail {

double Runner::wall_now() const {
  if (options_.now) return options_.now();
  return duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::expected<void, std::string> Runner::emit(nlohmann::json event, bool to_log) {
  event["time"] = wall_now();
  if (to_log) {
    if (auto ok = log_.append(event); !ok) return ok;
    book_.apply(event);
  }
  if (options_.observer) options_.observer->on_event(event);
  return {};
}

std::expected<void, std::string> Runner::set_up() {
  if (participants_.size() < 2) return std::unexpected(std::string("a tournament needs at least two agents"));
  if (config_.games.empty()) return std::unexpected(std::string("the tournament names no game to play"));
  if (config_.concurrency < 1) return std::unexpected(std::string("concurrency must be at least 1"));
  if (config_.tick.count() <= 0) return std::unexpected(std::string("the tick must be positive"));
  const config::AdjudicationConfig& adj = config_.adjudication;
  if (adj.referee_agent && (adj.draw_move_number || adj.resign_move_count)) {
    // One engine per game in flight (at most 4): scoring a position at a low depth takes
    // milliseconds, so a few engines keep up with every game; each is a separate process.
    const std::shared_ptr<Notifier> notifier = notifier_;
    auto referee = Referee::start(
        *adj.referee_agent, std::clamp(config_.concurrency, 1, 4), [notifier] { notifier->notify(); },
        options_.get_env);
    if (referee)
      referee_ = std::move(*referee);
    else
      spdlog::warn(
          "adjudication referee '{}' could not start ({}); the draw and resign rules use the players' "
          "own scores",
          adj.referee, referee.error());
  } else if (!adj.referee.empty()) {
    spdlog::info("adjudication referee '{}' is not started: no draw or resign rule needs it", adj.referee);
  }
  // Each participant's first instance tells which variants it plays.
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
  auto schedule = make_schedule(config_, players);
  if (!schedule) return std::unexpected(schedule.error());
  schedule_ = std::move(*schedule);
  pgn_.clock = config_.clock;
  // Output folder, event log (read back when resuming), result files.
  std::error_code ec;
  std::filesystem::create_directories(options_.output_dir, ec);
  if (ec)
    return std::unexpected(fmt::format("cannot create '{}': {}", options_.output_dir.string(), ec.message()));
  std::vector<nlohmann::json> existing;
  auto log = EventLog::open(options_.output_dir / "events.jsonl", options_.resume, &existing);
  if (!log) return std::unexpected(log.error());
  log_ = std::move(*log);
  if (auto ok = check_resume(existing); !ok) return ok;
  for (const auto& e : existing) book_.apply(e);
  for (const auto& g : schedule_)
    if (!book_.finished(g.index)) pending_.push_back(g.index);
  if (auto ok = sampler_.open_csv(options_.output_dir / "metrics.csv"); !ok) return ok;
  if (auto ok = rewrite_pgn(options_.output_dir, book_, pgn_); !ok) return ok;
  nlohmann::json start = {
      {"type", "tournament_start"},
      {"config_hash", options_.config_hash},
      {"arena_version", options_.arena_version.empty() ? build::version : options_.arena_version},
      {"seed", config_.seed},
      {"variants", config_.games},
      {"agents", names_},
      {"models", sampler_.models()},
      {"num_games", schedule_.size()},
      {"resumed", !existing.empty()},
      {"games_done", book_.num_finished()}};
  return emit(std::move(start));
}

std::expected<void, std::string> Runner::check_resume(const std::vector<nlohmann::json>& existing) {
  for (const auto& e : existing) {
    if (e.value("type", "") != "tournament_start") continue;
    std::vector<std::string> diffs;
    const std::string hash = e.value("config_hash", "");
    if (!hash.empty() && !options_.config_hash.empty() && hash != options_.config_hash)
      diffs.push_back(fmt::format("config hash {} (now {})", hash, options_.config_hash));
    if (e.value("seed", uint64_t{0}) != config_.seed)
      diffs.push_back(fmt::format("seed {} (now {})", e.value("seed", uint64_t{0}), config_.seed));
    if (e.value("num_games", int64_t{-1}) != int64_t(schedule_.size()))
      diffs.push_back(fmt::format("{} games (now {})", e.value("num_games", int64_t{-1}), schedule_.size()));
    if (e.contains("agents") && e["agents"] != nlohmann::json(names_))
      diffs.push_back(fmt::format("agents {} (now {})", e["agents"].dump(), nlohmann::json(names_).dump()));
    if (e.contains("variants") && e["variants"] != nlohmann::json(config_.games))
      diffs.push_back(
          fmt::format("games {} (now {})", e["variants"].dump(), nlohmann::json(config_.games).dump()));
    if (!diffs.empty()) {
      std::string all;
      for (const auto& d : diffs) all += (all.empty() ? "" : "; ") + d;
      return std::unexpected(fmt::format("cannot resume '{}': the tournament changed since it began: {}",
                                         options_.output_dir.string(), all));
    }
    return {};  // the first start describes the run
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
  auto g = std::make_unique<LiveGame>();
  g->spec = spec;
  g->id = game_id(index);
  auto game = games::make_game(spec.variant, spec.start_fen);
  if (!game) {
    fatal_ = fmt::format("game {}: {}", g->id, game.error().message);
    return;
  }
  g->game = std::move(*game);
  if (config_.clock)
    g->clock_ms = std::array<int64_t, 2>{config_.clock->base.count(), config_.clock->base.count()};
  g->adjudication.emplace(config_.adjudication);
  if (referee_) {
    g->use_referee = referee_->supports(spec.variant) && referee_->dead_reason().empty();
    if (!g->use_referee && referee_->dead_reason().empty())
      spdlog::debug("game {}: the referee does not play {}; the players' scores adjudicate it", g->id,
                    spec.variant);
  }
  nlohmann::json clock = g->clock_ms ? nlohmann::json(*g->clock_ms) : nlohmann::json(nullptr);
  if (auto ok = emit({{"type", "game_start"},
                      {"game", g->id},
                      {"index", index},
                      {"pair", spec.pair},
                      {"variant", spec.variant},
                      {"first", names_[spec.first]},
                      {"second", names_[spec.second]},
                      {"start_fen", g->game->fen()},
                      {"opening", spec.opening},
                      {"clock_ms", clock}});
      !ok) {
    fatal_ = ok.error();
    return;
  }
  for (int side = 0; side < 2; ++side) {
    Seat& seat = g->seats[side];
    seat.participant = side == 0 ? spec.first : spec.second;
    seat.name = names_[seat.participant];
  }
  for (int side = 0; side < 2 && !g->over; ++side) {
    Seat& seat = g->seats[side];
    std::string error;
    seat.agent = take_agent(seat.participant, &error);
    if (seat.agent) {
      agents::GameStart start{g->id, spec.variant, g->game->fen(),
                              side == 0 ? games::Side::First : games::Side::Second, g->seats[1 - side].name};
      if (auto failure = seat.agent->new_game(start))
        error = failure->message.empty() ? "new game refused" : failure->message;
    }
    if (!error.empty()) {
      g->failure_agent = seat.name;
      g->failure_kind = "crashed";
      g->failure_message = error;
      g->finish(side, fmt::format("{} could not start: {}", seat.name, error), "abandoned");
    }
  }
  if (!g->over) {
    const games::Outcome outcome = g->game->outcome();
    if (outcome.finished())
      g->finish(outcome.result == games::Outcome::Result::FirstWins    ? 1
                : outcome.result == games::Outcome::Result::SecondWins ? 0
                                                                       : -1,
                outcome.reason, "normal");
  }
  active_.push_back(std::move(g));
}

void Runner::cancel_requests(LiveGame& g) {
  for (Seat& seat : g.seats)
    if (seat.ticket) {
      seat.ticket->cancel();
      seat.draining = std::move(seat.ticket);
    }
}

std::expected<void, std::string> Runner::close_game(std::unique_ptr<LiveGame> g) {
  cancel_requests(*g);
  if (g->referee_wait) {  // the game ended (clock, interruption) before the referee answered
    if (auto ok = emit(std::move(g->referee_wait->event)); !ok) return ok;
    g->referee_wait.reset();
  }
  nlohmann::json end = {{"type", "game_end"},       {"game", g->id},
                        {"result", g->result},      {"reason", g->reason},
                        {"plies", g->moves.size()}, {"termination", g->termination},
                        {"index", g->spec.index}};
  if (!g->failure_agent.empty()) {
    end["failure_agent"] = g->failure_agent;
    end["failure_kind"] = g->failure_kind;
  }
  if (auto ok = emit(std::move(end)); !ok) return ok;
  log_.sync();
  const bool finished = g->result != "*";
  if (finished) {
    ++done_this_run_;
    if (const GameRecord* record = book_.finished(g->spec.index))
      if (auto ok = append_pgn(options_.output_dir, *record, pgn_); !ok) spdlog::warn("{}", ok.error());
    const Standings st = standings();
    if (auto ok = emit({{"type", "standings"}, {"rows", standings_event_rows(st)}}); !ok) return ok;
    if (auto ok = write_standings(options_.output_dir, st); !ok) spdlog::warn("{}", ok.error());
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
    LiveGame& g = **it;
    bool busy = false;
    for (Seat& seat : g.seats)
      if (seat.draining && !seat.draining->ready()) busy = true;
    if (busy && !force && now - g.closing_since < kDrainCap) {
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
  for (const auto& g : active_) {
    if (g->over) continue;
    const int side = g->side_to_move();
    const Seat& seat = g->seats[side];
    if (g->referee_wait && referee_) wake = std::min(wake, g->referee_wait->since + referee_->job_timeout());
    if (!seat.ticket) continue;
    if (!seat.missed) wake = std::min(wake, seat.deadline);
    if (g->clock_ms) wake = std::min(wake, seat.asked_at + milliseconds((*g->clock_ms)[side] + 1));
  }
  return wake;
}

Standings Runner::standings() const {
  std::optional<config::SprtConfig> sprt;
  if (config_.sprt && participants_.size() == 2) sprt = config_.sprt;
  return compute_standings(names_, book_, int32_t(schedule_.size()), sprt);
}

StatusInfo Runner::status_info() const {
  StatusInfo info;
  info.done = book_.num_finished();
  info.total = int32_t(schedule_.size());
  info.in_flight = int32_t(active_.size());
  info.done_this_run = done_this_run_;
  info.elapsed_s = seconds_between(run_start_, SteadyClock::now());
  info.moves = moves_this_run_;
  info.deadline_misses = deadline_misses_;
  info.engines = sampler_.latest();
  return info;
}

std::expected<RunSummary, std::string> Runner::run() {
  if (auto ok = set_up(); !ok) return std::unexpected(ok.error());
  const milliseconds move_time = config_.move_deadline.count() > 0 ? config_.move_deadline : config_.tick;
  SteadyClock::time_point next_tick = SteadyClock::now();
  bool interrupted = false;
  while (fatal_.empty()) {
    if (options_.stop && options_.stop->load()) {
      interrupted = true;
      break;
    }
    if (sprt_stopped_) break;
    while (int32_t(active_.size()) < config_.concurrency && !pending_.empty() && fatal_.empty()) {
      const int32_t index = pending_.front();
      pending_.pop_front();
      start_game(index);
    }
    if (active_.empty() && pending_.empty()) break;
    {
      std::lock_guard lock(notifier_->mutex);
      notifier_->pending = false;
    }
    auto now = SteadyClock::now();
    if (now >= next_tick) {
      ++ticks_;
      const auto tick_deadline = now + move_time;
      for (auto& g : active_)
        if (!g->over) ask(*g, now, tick_deadline);
      const double t = seconds_between(run_start_, now);
      sampler_.sample(t, ticks_, deadline_misses_);
      if (t - last_metrics_event_ >= 1.0) {
        last_metrics_event_ = t;
        for (const auto& s : sampler_.latest())
          (void)emit(MetricsSampler::to_event(s, deadline_misses_), false);
      }
      next_tick += config_.tick;
      if (next_tick <= now) next_tick = now + config_.tick;
    }
    // Answers in, deadlines and clocks, ended games out.
    now = SteadyClock::now();
    poll_referee(now);
    for (auto& g : active_) {
      for (Seat& seat : g->seats)
        if (seat.draining && seat.draining->ready()) seat.draining.reset();
      if (g->over) continue;
      Seat& seat = g->seats[g->side_to_move()];
      if (seat.ticket && seat.ticket->ready()) {
        if (seat.answered_at == SteadyClock::time_point{}) seat.answered_at = now;
        // An answer waits while the referee still scores the move before it.
        if (!g->referee_wait) handle_result(*g, seat.ticket->wait(), seat.answered_at);
      }
      // (Deadlines are judged once the referee has settled the move before: a substitute move now
      // would jump the queue.)
      if (!g->over && !g->referee_wait) check_deadlines(*g, now);
    }
    for (size_t i = 0; i < active_.size();) {
      if (!active_[i]->over) {
        ++i;
        continue;
      }
      auto g = std::move(active_[i]);
      active_.erase(active_.begin() + std::ptrdiff_t(i));
      if (auto ok = close_game(std::move(g)); !ok) fatal_ = ok.error();
    }
    release_closing(false);
    status_.update(status_info());
    if (!fatal_.empty() || (active_.empty() && pending_.empty())) continue;
    // Sleep until an answer, the next tick or the earliest deadline.
    std::unique_lock lock(notifier_->mutex);
    notifier_->cv.wait_until(lock, next_wake(next_tick),
                             [&] { return notifier_->pending || (options_.stop && options_.stop->load()); });
  }
  // Games still in flight are recorded unfinished (SIGINT, an SPRT decision, an I/O error).
  const std::string why = interrupted ? "interrupted" : sprt_stopped_ ? "sprt decided" : "run aborted";
  while (!active_.empty()) {
    auto g = std::move(active_.back());
    active_.pop_back();
    g->interrupt(why);
    if (auto ok = close_game(std::move(g)); !ok && fatal_.empty()) fatal_ = ok.error();
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
  referee_.reset();  // its engines stop now, not when the runner goes
  const Standings st = standings();
  RunSummary summary;
  summary.games_total = int32_t(schedule_.size());
  summary.games_done = st.games_done;
  summary.interrupted = interrupted || !fatal_.empty();
  summary.sprt_stopped = sprt_stopped_;
  (void)emit({{"type", "tournament_end"},
              {"interrupted", summary.interrupted},
              {"games_done", summary.games_done},
              {"sprt_stopped", sprt_stopped_},
              {"deadline_misses", deadline_misses_},
              {"ticks", ticks_}});
  log_.sync();
  if (auto ok = rewrite_pgn(options_.output_dir, book_, pgn_); !ok) spdlog::warn("{}", ok.error());
  if (auto ok = write_standings(options_.output_dir, st); !ok) spdlog::warn("{}", ok.error());
  status_.update(status_info(), true);
  status_.finish();
  if (!options_.quiet) std::fputs(standings_text(st).c_str(), stdout);
  if (!fatal_.empty()) return std::unexpected(fatal_);
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
