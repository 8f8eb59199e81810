// A reference engine (Stockfish, Fairy-Stockfish) driven over UCI for differential perft tests:
// `position fen F` + `go perft D`, the per-move counts and the total read back. The engine runs in
// agents::uci::UciProcess, whose every read has a deadline, so an engine that hangs or dies fails
// the test instead of stalling it.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "agents/uci/uci_process.h"

namespace arena::test {

class UciPerftReference {
 public:
  using Clock = std::chrono::steady_clock;
  using Read = agents::uci::UciProcess::Read;

  // Starts `path` and sets the variant ("" for chess); nullptr when it cannot be started or does
  // not answer `uci` / `isready` within 10 s.
  static std::unique_ptr<UciPerftReference> start(const std::string& path, const std::string& variant) {
    if (access(path.c_str(), X_OK) != 0) return nullptr;
    auto process = agents::uci::UciProcess::start(path, {});
    if (!process) return nullptr;
    auto& p = **process;
    std::string line;
    p.send("uci");
    if (p.read_until("uciok", line, Clock::now() + std::chrono::seconds(10)) != Read::Line) return nullptr;
    if (!variant.empty()) p.send("setoption name UCI_Variant value " + variant);
    p.send("isready");
    if (p.read_until("readyok", line, Clock::now() + std::chrono::seconds(10)) != Read::Line) return nullptr;
    return std::unique_ptr<UciPerftReference>(new UciPerftReference(std::move(*process)));
  }

  struct Result {
    uint64_t total = 0;
    std::map<std::string, uint64_t> divide;  // root move (UCI) -> count below it
  };

  // perft `depth` of `fen`, or nullopt when the engine gives no "Nodes searched" within `timeout`.
  std::optional<Result> perft(const std::string& fen, int depth, std::chrono::milliseconds timeout) {
    process_->send("position fen " + fen);
    process_->send("go perft " + std::to_string(depth));
    const auto deadline = Clock::now() + timeout;
    Result r;
    std::string line;
    while (process_->read_line(line, deadline) == Read::Line) {
      if (line.starts_with("Nodes searched:")) {
        r.total = std::stoull(line.substr(15));
        return r;
      }
      const auto colon = line.find(": ");
      if (colon != std::string::npos && colon >= 4 && colon <= 6 && line.find(' ') == colon + 1)
        r.divide[line.substr(0, colon)] = std::stoull(line.substr(colon + 2));
    }
    return std::nullopt;
  }

 private:
  explicit UciPerftReference(std::unique_ptr<agents::uci::UciProcess> process)
      : process_(std::move(process)) {}

  std::unique_ptr<agents::uci::UciProcess> process_;
};

}  // namespace arena::test
