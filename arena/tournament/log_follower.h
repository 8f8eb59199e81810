// Follows a growing event log (RESULTS/events.jsonl, docs/events.md) that another process is
// writing, for `arena view`: each poll() reads what was appended since the last one and returns
// its complete lines as events. A torn last line (a write not finished yet, or a crash) is left
// for a later poll; a log that shrank below what was read, or whose first bytes changed (the file
// was replaced: a new run in the same folder), is read again from its start and the poll says so.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "arena/tournament/events.h"

namespace arena::tournament {

struct FollowBatch {
  bool restarted = false;           // the log was replaced or cut: `events` start from its first line
  std::vector<Event> events;        // the complete lines read by this poll, in order
  std::vector<std::string> errors;  // "FILE:LINE: why" for each line that is not an event (skipped)
  bool missing = false;             // the file is not there (yet, or any more)
  bool more = false;                // the read stopped at the per-poll limit: poll again at once
};

class LogFollower {
 public:
  // At most this many bytes are read by one poll; a single line longer than that is an error.
  static constexpr size_t kMaxReadBytes = 16u << 20;

  explicit LogFollower(std::filesystem::path path) : path_(std::move(path)) {}

  // Reads what the log gained since the previous poll. Never blocks beyond the file reads.
  FollowBatch poll();

  const std::filesystem::path& path() const { return path_; }
  // Bytes of complete lines read so far, and their count.
  uint64_t offset() const { return offset_; }
  int64_t lines() const { return line_no_; }

 private:
  // Whether the file still starts with the bytes this follower read there first.
  bool same_start(int fd) const;
  // Parses the complete lines of `text` (which starts at offset_) into `batch`; returns the bytes used.
  size_t take_lines(const std::string& text, FollowBatch& batch);

  std::filesystem::path path_;
  uint64_t offset_ = 0;
  int64_t line_no_ = 0;
  std::string head_;  // the file's first bytes (up to its first line's end, at most 256)
};

}  // namespace arena::tournament
