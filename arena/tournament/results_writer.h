// Where a run's events and results go: the event log (events.jsonl) and the observers get every
// event, the game records (game_record.h) are kept from the same events, and games.pgn and the
// standings files follow as games finish. Reopens the log of a resumed run and replays it.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "arena/tournament/event_log.h"
#include "arena/tournament/events.h"
#include "arena/tournament/game_record.h"
#include "arena/tournament/observer.h"
#include "arena/tournament/pgn_writer.h"
#include "arena/tournament/standings.h"

namespace arena::tournament {

class ResultsWriter {
 public:
  // `now`: the wall clock of event timestamps (Unix seconds); null = the system clock.
  ResultsWriter(std::filesystem::path dir, TournamentObserver* observer, std::function<double()> now,
                PgnContext pgn);

  // Creates the output folder and the event log, or with `resume` reopens it: its events are
  // replayed into the game records and returned.
  std::expected<std::vector<Event>, std::string> open(bool resume);
  // Rewrites games.pgn from the game records (a resumed run's, before it plays on).
  std::expected<void, std::string> rewrite_pgn();
  // Stamps the event with the time and hands it to the log (with `to_log`: its seq, the game
  // records) and the observers.
  std::expected<void, std::string> emit(EventBody body, bool to_log = true);
  // Makes the log durable (a game ended).
  void sync() { log_.sync(); }
  // The game at `index` finished: its PGN appended, the standings emitted and written.
  std::expected<void, std::string> game_finished(int32_t index, const Standings& standings);
  // The end of the run: the log made durable, games.pgn and the standings rewritten. An error
  // when they cannot be (a full or read-only folder): the log still holds every game, and
  // `--resume` writes them once the folder takes writes again.
  std::expected<void, std::string> finish(const Standings& standings);

  const GameBook& book() const { return book_; }

 private:
  double now() const;

  std::filesystem::path dir_;
  TournamentObserver* observer_;
  std::function<double()> now_;
  PgnContext pgn_;
  EventLog log_;
  GameBook book_;
};

}  // namespace arena::tournament
