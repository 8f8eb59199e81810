// ThreadPool: every task index runs exactly once, for any task count and thread count, across
// many back-to-back jobs.
#include "kernels/thread_pool.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <vector>

TEST_CASE("ThreadPool runs every task exactly once", "[kernels]") {
  for (int threads : {1, 2, 5}) {
    kernels::ThreadPool pool(threads);
    CHECK(pool.num_threads() == threads);
    for (int64_t tasks : {0, 1, 2, 7, 1000}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(tasks));
        pool.run(tasks, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
        for (auto& h : hits) REQUIRE(h.load() == 1);
      }
    }
  }
}

TEST_CASE("ThreadPool defaults to the hardware thread count", "[kernels]") {
  kernels::ThreadPool pool;
  CHECK(pool.num_threads() == kernels::resolve_num_threads(0));
  CHECK(kernels::resolve_num_threads(0) >= 1);
  CHECK(kernels::resolve_num_threads(3) == 3);
}
