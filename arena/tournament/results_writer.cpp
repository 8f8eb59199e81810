// Where a run's events and results go (see results_writer.h).
#include "arena/tournament/results_writer.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "arena/tournament/results_files.h"

namespace arena::tournament {

ResultsWriter::ResultsWriter(std::filesystem::path dir, TournamentObserver* observer,
                             std::function<double()> now, PgnContext pgn)
    : dir_(std::move(dir)), observer_(observer), now_(std::move(now)), pgn_(std::move(pgn)) {}

double ResultsWriter::now() const {
  if (now_) return now_();
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::expected<std::vector<Event>, std::string> ResultsWriter::open(bool resume) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return std::unexpected(fmt::format("cannot create '{}': {}", dir_.string(), ec.message()));
  std::vector<Event> existing;
  auto log = EventLog::open(dir_ / "events.jsonl", resume, &existing);
  if (!log) return std::unexpected(log.error());
  log_ = std::move(*log);
  for (const Event& e : existing) book_.apply(e);
  return existing;
}

std::expected<void, std::string> ResultsWriter::rewrite_pgn() {
  return tournament::rewrite_pgn(dir_, book_, pgn_);
}

std::expected<void, std::string> ResultsWriter::emit(EventBody body, bool to_log) {
  Event event{std::nullopt, now(), std::move(body)};
  if (to_log) {
    if (auto ok = log_.append(event); !ok) return ok;
    book_.apply(event);
  }
  if (observer_) observer_->on_event(event);
  return {};
}

std::expected<void, std::string> ResultsWriter::game_finished(int32_t index, const Standings& standings) {
  const GameRecord* record = book_.finished(index);
  if (record)
    if (auto ok = append_pgn(dir_, *record, pgn_); !ok) spdlog::warn("{}", ok.error());
  if (auto ok = emit(standings_event(standings)); !ok) return ok;
  if (auto ok = write_standings(dir_, standings); !ok) spdlog::warn("{}", ok.error());
  return {};
}

std::expected<void, std::string> ResultsWriter::finish(const Standings& standings) {
  log_.sync();
  // During the run a failed games.pgn / standings write is only a warning (the next game's
  // write replaces them); at the end nothing comes after, so it is the run's error.
  auto pgn = rewrite_pgn();
  auto written = write_standings(dir_, standings);
  if (!pgn) return pgn;
  return written;
}

}  // namespace arena::tournament
