#include "arena/tournament/run_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace arena::tournament {

std::expected<RunLock, std::string> RunLock::acquire(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kRunLockFile;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return std::unexpected(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  int locked = ::flock(fd, LOCK_EX | LOCK_NB);
  for (int retry = 0; locked != 0 && errno == EWOULDBLOCK && retry < 5; ++retry) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    locked = ::flock(fd, LOCK_EX | LOCK_NB);
  }
  if (locked != 0) {
    const int error = errno;
    ::close(fd);
    if (error != EWOULDBLOCK)
      return std::unexpected(fmt::format("cannot lock {}: {}", path.string(), std::strerror(error)));
    std::ifstream in(path);
    std::stringstream pid;
    pid << in.rdbuf();
    std::string holder = pid.str();
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return std::unexpected(
        fmt::format("{} is being written by another arena run{}: wait for it to end, or "
                    "choose another folder with --output",
                    dir.string(), holder.empty() ? "" : " (pid " + holder + ")"));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::write(fd, pid.data(), pid.size()) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd);
    return std::unexpected(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
  }
  return RunLock(fd);
}

RunLock::RunLock(RunLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);
}

RunLockState run_lock_state(const std::filesystem::path& dir) {
  const int fd = ::open((dir / kRunLockFile).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return RunLockState::Absent;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // drops the probe's own lock
  return held ? RunLockState::Held : RunLockState::Free;
}

}  // namespace arena::tournament
