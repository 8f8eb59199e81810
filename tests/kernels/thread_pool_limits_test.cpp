// ThreadPool limits: thread counts above 4 x the hardware threads are refused by
// check_num_threads (and clamped by the pool), and a worker that cannot start (no memory for its
// stack) leaves a smaller pool that still runs every task and says why, instead of a hang.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "kernels/thread_pool.h"

TEST_CASE("check_num_threads bounds the thread count", "[kernels]") {
  const int hw = kernels::resolve_num_threads(0);
  CHECK(kernels::max_num_threads() == 4 * hw);
  CHECK(kernels::check_num_threads(0) == hw);
  CHECK(kernels::check_num_threads(1) == 1);
  CHECK(kernels::check_num_threads(4 * hw) == 4 * hw);
  for (int bad : {4 * hw + 1, 100000, -1}) {
    const auto r = kernels::check_num_threads(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().find("--threads " + std::to_string(bad)) == 0);
  }
  CHECK(kernels::check_num_threads(100000).error().find("use at most " + std::to_string(4 * hw)) !=
        std::string::npos);
}

TEST_CASE("ThreadPool clamps a count above the bound and says so", "[kernels]") {
  kernels::ThreadPool pool(100000);
  CHECK(pool.num_threads() == kernels::max_num_threads());
  CHECK(pool.start_error().find("--threads 100000") == 0);
  kernels::ThreadPool fine(2);
  CHECK(fine.start_error().empty());
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST_CASE("ThreadPool survives a worker that cannot start", "[kernels]") {
  // In a child process: cap the address space just above what is mapped now, so no new 8 MiB
  // thread stack fits; the pool must come up with fewer threads, report it, and still work.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
    const rlimit limit{now + (2u << 20), now + (2u << 20)};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(10);
    kernels::ThreadPool pool(8);
    if (pool.num_threads() >= 8) _exit(11);
    if (pool.start_error().find("could not start compute thread") != 0) _exit(12);
    std::vector<std::atomic<int>> hits(100);
    pool.run(100, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
    for (auto& h : hits)
      if (h.load() != 1) _exit(13);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
#endif
