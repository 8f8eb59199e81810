// The lock a run holds on its results folder: `run.lock`, locked with flock(2) for as long as the
// run writes there, with the holder's pid inside. A second `arena run` (or `--resume`) on the same
// folder is refused instead of interleaving its events with the first's; the kernel drops the lock
// when the holder dies, so a killed run never leaves a stale lock behind. `arena view` probes the
// lock to tell a live run from one that died without its tournament_end.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

namespace arena::tournament {

inline constexpr const char* kRunLockFile = "run.lock";

class RunLock {
 public:
  // Locks `dir`/run.lock (the folder must exist), or says who holds it. A lock held for a moment
  // only (a probe's, below) is waited for, up to a quarter of a second.
  static std::expected<RunLock, std::string> acquire(const std::filesystem::path& dir);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Whether a run holds `dir`/run.lock now: Absent when there is no such file (a folder written
// before arena locked its folders, or by no run at all). The probe takes a shared lock for a moment.
enum class RunLockState { Absent, Held, Free };
RunLockState run_lock_state(const std::filesystem::path& dir);

}  // namespace arena::tournament
