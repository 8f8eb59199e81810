// One running engine process with line-based pipes (Boost.Process, Asio async pipes). An Asio
// thread reads the engine's stdout into a queue of lines and writes queued commands to its stdin;
// callers take lines with a deadline, so no caller ever blocks on the engine. The destructor (and
// kill) ends the process with SIGKILL and reaps it: no zombies.
#pragma once

#include <atomic>
#include <chrono>
#include <expected>
#include <memory>
#include <string>
#include <vector>

namespace agents::uci {

using Clock = std::chrono::steady_clock;

class UciProcess {
 public:
  // Starts `executable` (an absolute path) with `args`; an error says why it could not start.
  static std::expected<std::unique_ptr<UciProcess>, std::string> start(const std::string& executable,
                                                                       const std::vector<std::string>& args);
  ~UciProcess();
  UciProcess(const UciProcess&) = delete;
  UciProcess& operator=(const UciProcess&) = delete;

  // Queues `line` (a newline is added) for the engine's stdin. Never blocks.
  void send(const std::string& line);

  enum class Read { Line, Timeout, Closed, Cancelled };
  // Takes the next line the engine wrote, waiting until `until`; Closed once the engine's stdout
  // has ended (it exited or crashed) and every line before that was taken; Cancelled as soon as
  // `*cancel` is true (checked every few milliseconds).
  Read read_line(std::string& line, Clock::time_point until, const std::atomic<bool>* cancel = nullptr);

  // Whether stdout is still open (the process has not been seen to end).
  bool open() const;
  // Why the process ended ("exited with status 1", "killed by signal 9", a read error), once it has.
  std::string exit_reason();
  // Ends the process now (SIGKILL) and reaps it; idempotent.
  void kill();
  // The process id.
  int pid() const;

 private:
  struct Impl;
  explicit UciProcess(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace agents::uci
