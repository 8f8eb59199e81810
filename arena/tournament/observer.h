// What the tournament runner tells the outside world (the board server's hub, tests): every event
// it writes to events.jsonl, plus periodic engine metrics samples (events.h; schema in
// docs/events.md). Called on the runner's thread; an observer must return quickly and never
// block (the server posts the event to its own io_context).
#pragma once

#include "arena/tournament/events.h"

namespace arena::tournament {

class TournamentObserver {
 public:
  virtual ~TournamentObserver() = default;
  // One event: those of the log carry their seq; metrics samples have none.
  virtual void on_event(const Event& event) = 0;
};

}  // namespace arena::tournament
