// A small fixed pool of worker threads for data-parallel kernels: run(n, fn) calls fn(i) for
// every i in [0, n) across the workers and the calling thread, and returns when all are done.
// Workers spin briefly between jobs (kernels come in quick succession during a forward pass)
// and then sleep on a condition variable. Thread counts are bounded (check_num_threads), and a
// worker that cannot be started leaves a working, smaller pool with start_error() set instead
// of an exception or a hang.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <expected>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kernels {

class ThreadPool {
 public:
  // A pool of `num_threads` threads in all, counting the caller; 0 means hardware_concurrency.
  // Counts outside check_num_threads are clamped into [1, max_num_threads()] and noted in
  // start_error(); so is a worker that fails to start (the pool then runs on those that did).
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that share the work of run(), counting the caller.
  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Empty when the pool has every thread it was asked for; otherwise why it has fewer.
  const std::string& start_error() const { return start_error_; }

  // Calls fn(i) for i in [0, num_tasks), spread over the pool; blocks until every call returned.
  // Not reentrant: fn must not call run() on the same pool.
  void run(int64_t num_tasks, const std::function<void(int64_t)>& fn);

 private:
  void worker_loop();
  void work_on_current_job();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int64_t)>* job_ = nullptr;  // the current job, valid while generation_ is odd
  int64_t num_tasks_ = 0;
  std::atomic<int64_t> next_task_{0};
  std::atomic<int> num_busy_{0};         // workers still inside the current job
  std::atomic<uint64_t> generation_{0};  // bumped once per job
  bool stop_ = false;
  std::string start_error_;
};

// Threads to use for `requested` (0 = hardware_concurrency, at least 1).
int resolve_num_threads(int requested);

// The most threads a pool may have: 4 x hardware_concurrency (at least 4).
int max_num_threads();

// `requested` resolved (0 = hardware_concurrency), or an error a user can act on when it is
// negative or above max_num_threads(). Every --threads value goes through this (model loading
// calls it), so no command can start 100000 threads.
std::expected<int, std::string> check_num_threads(int requested);

}  // namespace kernels
