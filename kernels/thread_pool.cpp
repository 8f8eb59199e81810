// ThreadPool: workers pick task indices from an atomic counter; the caller works too.
#include "kernels/thread_pool.h"

#include <algorithm>
#include <string>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace kernels {

namespace {

// Busy-wait iterations before a worker (or the caller) goes to sleep: about 50-100 µs.
constexpr int kSpinIterations = 2000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace

int resolve_num_threads(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int max_num_threads() {
  return 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::expected<int, std::string> check_num_threads(int requested) {
  if (requested < 0)
    return std::unexpected("--threads " + std::to_string(requested) +
                           " must be 0 (every core) or a positive count");
  if (requested > max_num_threads())
    return std::unexpected("--threads " + std::to_string(requested) + " is more than 4 x the " +
                           std::to_string(resolve_num_threads(0)) + " hardware threads; use at most " +
                           std::to_string(max_num_threads()));
  return resolve_num_threads(requested);
}

ThreadPool::ThreadPool(int num_threads) {
  int total = resolve_num_threads(num_threads);
  if (auto checked = check_num_threads(num_threads); !checked) {
    start_error_ = checked.error();
    total = std::clamp(total, 1, max_num_threads());
  }
  workers_.reserve(static_cast<size_t>(total - 1));
  for (int i = 1; i < total; ++i) {
    try {
      workers_.emplace_back([this] { worker_loop(); });
    } catch (const std::system_error& e) {
      // Out of threads or memory for a stack: keep the workers that started.
      start_error_ = "could not start compute thread " + std::to_string(i + 1) + " of " +
                     std::to_string(total) + ": " + e.what();
      break;
    }
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run(int64_t num_tasks, const std::function<void(int64_t)>& fn) {
  if (num_tasks <= 0) return;
  if (workers_.empty() || num_tasks == 1) {
    for (int64_t i = 0; i < num_tasks; ++i) fn(i);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    num_tasks_ = num_tasks;
    next_task_.store(0, std::memory_order_relaxed);
    num_busy_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  work_on_current_job();
  for (int i = 0; i < kSpinIterations && num_busy_.load(std::memory_order_acquire) != 0; ++i) cpu_relax();
  if (num_busy_.load(std::memory_order_acquire) != 0) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return num_busy_.load(std::memory_order_acquire) == 0; });
  }
}

void ThreadPool::work_on_current_job() {
  const auto& fn = *job_;
  for (;;) {
    const int64_t i = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (i >= num_tasks_) return;
    fn(i);
  }
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    for (int i = 0; i < kSpinIterations && generation_.load(std::memory_order_acquire) == seen; ++i)
      cpu_relax();
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      if (stop_) return;
      seen = generation_.load(std::memory_order_acquire);
    }
    work_on_current_job();
    if (num_busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace kernels
