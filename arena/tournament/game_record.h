// What the event log says about each game: its start, every move with its agent's numbers, and
// its end. Built by replaying events (live as the runner writes them, and from the log on
// resume), so that PGN and standings come from the same records either way. A `game_start` for
// an index seen before replaces that game (an unfinished game replayed after a resume).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace arena::tournament {

struct MoveRecord {
  int32_t ply = 0;
  bool first_side = true;  // played by the first (white / Cho) player
  std::string agent, uci, human;
  double latency_s = 0, ttft_s = 0, queue_s = 0;
  int32_t prompt_tokens = 0, cached_tokens = 0, completion_tokens = 0, retries = 0;
  std::optional<std::array<int64_t, 2>> clock_ms;  // after the move
  std::string substitute;                          // "" or the deadline policy that chose it
  std::string failure_kind, failure_message;       // why the agent's own answer was not played
  std::optional<int32_t> score_cp;
};

// One side's numbers over a game's moves (summed when the game ends, so that standings over many
// games never walk every move again).
struct SideUsage {
  int32_t moves = 0, retries = 0, illegal = 0, failures = 0;
  double latency_s = 0;
  int64_t prompt_tokens = 0, cached_tokens = 0, completion_tokens = 0;
};

struct GameRecord {
  int32_t index = 0;
  int32_t pair = -1;
  std::string id, variant, first, second, start_fen, opening;
  std::optional<std::array<int64_t, 2>> clock_ms;  // at the start
  double start_time = 0, end_time = 0;
  std::vector<MoveRecord> moves;
  bool ended = false;        // a game_end was seen (possibly "*")
  std::string result = "*";  // "1-0", "0-1", "1/2-1/2", "*"
  std::string reason;
  std::string termination;                  // the PGN Termination tag
  std::string failure_agent, failure_kind;  // an agent failure that ended the game
  std::array<SideUsage, 2> usage;           // [0] first, [1] second; filled at the game's end

  bool finished() const { return ended && result != "*"; }
};

// Every game of the log, by schedule index.
class GameBook {
 public:
  // Applies one event (game_start, move, game_end; other types are ignored).
  void apply(const nlohmann::json& event);
  const std::map<int32_t, GameRecord>& games() const { return games_; }
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
