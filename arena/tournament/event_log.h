// The append-only event log, RESULTS/events.jsonl (schema in docs/events.md): one JSON object per
// line, written with one write() call and flushed to the kernel per event, fsynced when a game
// finishes and at the end. On resume the existing log is read back; a truncated last line (a
// crash in the middle of a write) is dropped and cut from the file before new events follow.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arena/tournament/events.h"

namespace arena::tournament {

class EventLog {
 public:
  EventLog() = default;
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  EventLog(EventLog&& other) noexcept;
  EventLog& operator=(EventLog&& other) noexcept;
  ~EventLog();

  // Creates `path` afresh (an existing file is an error unless `resume`); with `resume`, reads
  // the events already there into `existing` (the truncated last line dropped and cut off; events
  // of a type this build does not know skipped). An error for an event it cannot read.
  static std::expected<EventLog, std::string> open(const std::filesystem::path& path, bool resume,
                                                   std::vector<Event>* existing);

  // Appends `event` as one line (its seq is set to the next number). A write that fails half
  // way (a full disk) is cut back, so the log holds whole lines only and the seq is not used.
  std::expected<void, std::string> append(Event& event);
  // Makes everything appended so far durable (fsync).
  void sync();
  // The seq the next event gets.
  int64_t next_seq() const { return next_seq_; }

 private:
  int fd_ = -1;
  int64_t next_seq_ = 1;
  bool torn_ = false;  // a failed write left a half line that could not be cut off: no more appends
  std::filesystem::path path_;
};

// Reads every complete event of a log file; `truncated` tells whether a torn last line was dropped
// (then `valid_bytes` is where the good part ends). An error for a corrupt line that is not last.
struct LogContents {
  std::vector<nlohmann::json> events;
  bool truncated = false;
  uint64_t valid_bytes = 0;
};
std::expected<LogContents, std::string> read_event_log(const std::filesystem::path& path);

}  // namespace arena::tournament
