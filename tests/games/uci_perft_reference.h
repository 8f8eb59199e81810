// A reference engine (Stockfish, Fairy-Stockfish) driven over UCI for differential perft tests:
// `position fen F` + `go perft D`, the per-move counts and the total read back. Every read has
// a deadline, so an engine that hangs or dies fails the test instead of stalling it.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace arena::test {

class UciPerftReference {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts `path` and sets the variant ("" for chess); nullptr when it cannot be started or does
  // not answer `uci` / `isready` within 10 s.
  static std::unique_ptr<UciPerftReference> start(const std::string& path, const std::string& variant) {
    if (access(path.c_str(), X_OK) != 0) return nullptr;
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return nullptr;
    const pid_t pid = fork();
    if (pid < 0) return nullptr;
    if (pid == 0) {
      dup2(fds[1], STDIN_FILENO);
      dup2(fds[1], STDOUT_FILENO);
      if (const int null = open("/dev/null", O_WRONLY); null >= 0) dup2(null, STDERR_FILENO);
      execl(path.c_str(), path.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    std::unique_ptr<UciPerftReference> e(new UciPerftReference(pid, fds[0]));
    e->send("uci");
    if (!e->wait_for("uciok", std::chrono::seconds(10))) return nullptr;
    if (!variant.empty()) e->send("setoption name UCI_Variant value " + variant);
    e->send("isready");
    if (!e->wait_for("readyok", std::chrono::seconds(10))) return nullptr;
    return e;
  }

  ~UciPerftReference() {
    send("quit");
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        close(fd_);
        return;
      }
      usleep(20000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    close(fd_);
  }

  struct Result {
    uint64_t total = 0;
    std::map<std::string, uint64_t> divide;  // root move (UCI) -> count below it
  };

  // perft `depth` of `fen`, or nullopt when the engine gives no "Nodes searched" within `timeout`.
  std::optional<Result> perft(const std::string& fen, int depth, std::chrono::milliseconds timeout) {
    send("position fen " + fen);
    send("go perft " + std::to_string(depth));
    const auto deadline = Clock::now() + timeout;
    Result r;
    while (auto line = read_line(deadline)) {
      if (line->starts_with("Nodes searched:")) {
        r.total = std::stoull(line->substr(15));
        return r;
      }
      const auto colon = line->find(": ");
      if (colon != std::string::npos && colon >= 4 && colon <= 6 && line->find(' ') == colon + 1)
        r.divide[line->substr(0, colon)] = std::stoull(line->substr(colon + 2));
    }
    return std::nullopt;
  }

 private:
  UciPerftReference(pid_t pid, int fd) : pid_(pid), fd_(fd) {}

  void send(const std::string& line) {
    const std::string text = line + "\n";
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::send(fd_, text.data() + done, text.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

  std::optional<std::string> read_line(Clock::time_point deadline) {
    while (true) {
      if (const auto end = buffer_.find('\n'); end != std::string::npos) {
        std::string line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return line;
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      pollfd p{fd_, POLLIN, 0};
      if (left <= 0 || buffer_.size() > (1 << 20) || poll(&p, 1, static_cast<int>(left)) <= 0)
        return std::nullopt;
      char chunk[4096];
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  bool wait_for(const std::string& text, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      const auto line = read_line(deadline);
      if (!line) return false;
      if (*line == text) return true;
    }
    return false;
  }

  pid_t pid_;
  int fd_;
  std::string buffer_;
};

}  // namespace arena::test
