// The results folder's run lock: one holder at a time, the holder's pid in the refusal, released
// when the holder goes away.
#include "arena/tournament/run_lock.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

using arena::tournament::RunLock;

TEST_CASE("A results folder takes one run at a time", "[arena]") {
  const auto dir = std::filesystem::temp_directory_path() / ("arena-run-lock-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    auto first = RunLock::acquire(dir);
    REQUIRE(first);
    auto second = RunLock::acquire(dir);  // flock(2) locks conflict across open files, even in one process
    REQUIRE_FALSE(second);
    INFO(second.error());
    CHECK(second.error().find("another arena run (pid " + std::to_string(::getpid()) + ")") !=
          std::string::npos);
    RunLock moved = std::move(*first);  // the lock moves with it
    CHECK_FALSE(RunLock::acquire(dir));
  }
  CHECK(RunLock::acquire(dir));                    // released with its holder
  CHECK_FALSE(RunLock::acquire(dir / "missing"));  // a folder that is not there: a clear error
  std::filesystem::remove_all(dir);
}
