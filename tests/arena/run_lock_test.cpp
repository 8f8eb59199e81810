// The results folder's run lock: one holder at a time, the holder's pid in the refusal, released
// when the holder goes away; the probe of `arena view`.
#include "arena/tournament/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

using arena::tournament::run_lock_state;
using arena::tournament::RunLock;
using arena::tournament::RunLockState;

TEST_CASE("A results folder takes one run at a time", "[arena]") {
  const auto dir = std::filesystem::temp_directory_path() / ("arena-run-lock-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CHECK(run_lock_state(dir) == RunLockState::Absent);  // never locked
  {
    auto first = RunLock::acquire(dir);
    CHECK(run_lock_state(dir) == RunLockState::Held);
    CHECK(run_lock_state(dir) == RunLockState::Held);  // the probe leaves the lock as it was
    REQUIRE(first);
    auto second = RunLock::acquire(dir);  // flock(2) locks conflict across open files, even in one process
    REQUIRE_FALSE(second);
    INFO(second.error());
    CHECK(second.error().find("another arena run (pid " + std::to_string(::getpid()) + ")") !=
          std::string::npos);
    RunLock moved = std::move(*first);  // the lock moves with it
    CHECK_FALSE(RunLock::acquire(dir));
  }
  CHECK(run_lock_state(dir) == RunLockState::Free);
  CHECK(RunLock::acquire(dir));                    // released with its holder
  CHECK_FALSE(RunLock::acquire(dir / "missing"));  // a folder that is not there: a clear error
  {
    // A probe (arena view's shared lock) at the moment a run starts does not refuse the run.
    const int probe = ::open((dir / "run.lock").c_str(), O_RDONLY);
    REQUIRE(probe >= 0);
    REQUIRE(::flock(probe, LOCK_SH | LOCK_NB) == 0);
    std::thread release([probe] {
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
      ::close(probe);
    });
    CHECK(RunLock::acquire(dir));
    release.join();
  }
  std::filesystem::remove_all(dir);
}
