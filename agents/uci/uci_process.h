// One running engine process with line-based pipes (Boost.Process, Asio async pipes). An Asio
// thread reads the engine's stdout into a queue of lines and writes queued commands to its stdin;
// callers take lines with a deadline, so no caller ever blocks on the engine, and at most a few
// thousand unread lines are kept (then reading pauses). The destructor (and kill) ends the process
// with SIGKILL and reaps it: no zombies. The UCI agent, `arena bench perft` and the differential
// perft tests all drive their engines through it.
#pragma once

#include <atomic>
#include <chrono>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
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
  // Takes the next line the engine wrote, waiting until `until` (past it, only lines already read
  // are taken, so an engine that floods its output cannot keep a reading caller); Closed once the
  // engine's stdout has ended (it exited or crashed) and every line before that was taken;
  // Cancelled as soon as `*cancel` is true (checked every few milliseconds).
  Read read_line(std::string& line, Clock::time_point until, const std::atomic<bool>* cancel = nullptr);
  // Takes lines until one starts with `prefix` (Line, with it in `line`), or as read_line ends.
  Read read_until(std::string_view prefix, std::string& line, Clock::time_point until);

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
