// What the tournament runner tells the outside world (the board server's hub, tests): every event
// it writes to events.jsonl, plus periodic engine metrics samples, as JSON objects with the schema
// of docs/events.md. Called on the runner's thread; an observer must return quickly and never
// block (the server posts the event to its own io_context).
#pragma once

#include <nlohmann/json.hpp>

namespace arena::tournament {

class TournamentObserver {
 public:
  virtual ~TournamentObserver() = default;
  // One event: {"seq": N, "time": unix seconds, "type": "tournament_start" | "game_start" | "move" |
  // "game_end" | "standings" | "metrics" | "tournament_end", ...}.
  virtual void on_event(const nlohmann::json& event) = 0;
};

}  // namespace arena::tournament
