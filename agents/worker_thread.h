// A single background thread that runs posted jobs one after another, for the agents that think
// off the caller's thread (search, UCI). The destructor runs the jobs already posted, then joins.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace agents {

class WorkerThread {
 public:
  WorkerThread();
  ~WorkerThread();
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  // Queues `job` to run on the worker thread after the jobs before it. Never blocks.
  void post(std::function<void()> job);

  // Whether the caller is the worker thread itself.
  bool on_worker() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace agents
