// The lock a run holds on its results folder: `run.lock`, locked with flock(2) for as long as the
// run writes there, with the holder's pid inside. A second `arena run` (or `--resume`) on the same
// folder is refused instead of interleaving its events with the first's; the kernel drops the lock
// when the holder dies, so a killed run never leaves a stale lock behind.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

namespace arena::tournament {

inline constexpr const char* kRunLockFile = "run.lock";

class RunLock {
 public:
  // Locks `dir`/run.lock (the folder must exist), or says who holds it.
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

}  // namespace arena::tournament
