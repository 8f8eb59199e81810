// What the event log says about each game: its start, every move with its agent's numbers, and
// its end, kept as the events themselves (events.h); the runner, the result files and the board
// server's hub share this one record. Built by replaying events (live as the runner writes them,
// and from the log on resume), so that PGN and standings come from the same records either way. A
// `game_start` for an index seen before replaces that game (an unfinished game replayed after a resume).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arena/tournament/events.h"

namespace arena::tournament {

// One side's numbers over a game's moves (summed when the game ends, so that standings over many
// games never walk every move again).
struct SideUsage {
  int32_t moves = 0, retries = 0, illegal = 0, failures = 0;
  double latency_s = 0;
  int64_t prompt_tokens = 0, cached_tokens = 0, completion_tokens = 0;
};

struct GameRecord {
  GameStart start;  // the last game_start of this game
  double start_time = 0, end_time = 0;
  std::vector<MoveEvent> moves;    // ply order
  std::optional<GameEnd> end;      // once a game_end was seen (possibly "*")
  std::array<SideUsage, 2> usage;  // [0] first, [1] second; filled at the game's end

  bool finished() const { return end && end->result != "*"; }
  // The result, "*" while in flight.
  const std::string& result() const;
};

// Every game of the log, by schedule index.
class GameBook {
 public:
  // Applies one event (game_start, move, game_end; other types are ignored); the record it
  // changed, or null.
  const GameRecord* apply(const Event& event);
  const std::map<int32_t, GameRecord>& games() const { return games_; }
  // The game with id `id` ("g0001"), or null.
  const GameRecord* find(const std::string& id) const;
  // The finished game at `index`, or null.
  const GameRecord* finished(int32_t index) const;
  // Games with a result.
  int32_t num_finished() const { return num_finished_; }

 private:
  std::map<int32_t, GameRecord> games_;
  std::map<std::string, int32_t> index_of_;
  int32_t num_finished_ = 0;
};

}  // namespace arena::tournament
