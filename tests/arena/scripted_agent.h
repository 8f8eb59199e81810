// Helpers of the end-to-end tournament tests: a scripted agent (plays the first legal move, or
// misbehaves at one ply), a quick tournament config and quiet run options, and pgn-extract's
// verdict on a PGN text.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "agents/agent.h"
#include "arena/tournament/runner.h"
#include "games/game.h"

namespace arena::test {

namespace fs = std::filesystem;
using tournament::Participant;
using tournament::RunOptions;

// A scripted agent: plays the first legal move, answering after `delay` on its own thread (or at
// once); at ply `bad_ply` it misbehaves as `mode` says.
struct Script {
  enum class Mode { Good, Illegal, Resign, Silent, Crash } mode = Mode::Good;
  int bad_ply = -1;
  std::chrono::milliseconds delay{0};
};

class ScriptedAgent final : public agents::Agent {
 public:
  ScriptedAgent(std::string name, Script script) : name_(std::move(name)), script_(script) {}
  ~ScriptedAgent() override {
    for (auto& t : threads_) t.join();
  }
  const std::string& name() const override { return name_; }
  bool supports(std::string_view) const override { return true; }
  std::optional<agents::MoveFailure> new_game(const agents::GameStart&) override { return std::nullopt; }
  std::shared_ptr<agents::MoveTicket> start_move(const agents::MoveRequest& request) override {
    agents::MoveResult r;
    const auto legal = request.game->legal_moves();
    r.move = legal.empty() ? "" : legal.front();
    r.score_cp = 0;
    const int ply = int(request.moves.size());
    if (ply >= script_.bad_ply && script_.bad_ply >= 0) {
      switch (script_.mode) {
        case Script::Mode::Illegal:
          r.move.clear();
          r.failure = agents::MoveFailure{agents::FailureKind::Illegal, "answer 'Qh9' is not a legal move"};
          break;
        case Script::Mode::Resign:
          r.move.clear();
          r.resigned = true;
          break;
        case Script::Mode::Crash:
          r.move.clear();
          r.failure = agents::MoveFailure{agents::FailureKind::Crashed, "pipe closed"};
          break;
        case Script::Mode::Silent: {
          // Never answers by itself; resolves as cancelled when the arena cancels.
          auto ticket = std::make_shared<agents::MoveTicket>();
          ticket->set_on_ready(request.on_ready);
          std::weak_ptr<agents::MoveTicket> weak = ticket;
          ticket->set_cancel_hook([weak] {
            if (auto t = weak.lock()) {
              agents::MoveResult c;
              c.failure = agents::MoveFailure{agents::FailureKind::Cancelled, "cancelled"};
              t->resolve(c);
            }
          });
          return ticket;
        }
        case Script::Mode::Good:
          break;
      }
    }
    if (script_.delay.count() == 0) return agents::resolved_ticket(r, request);
    auto ticket = std::make_shared<agents::MoveTicket>();
    ticket->set_on_ready(request.on_ready);
    threads_.emplace_back([ticket, r, delay = script_.delay] {
      std::this_thread::sleep_for(delay);
      ticket->resolve(r);
    });
    return ticket;
  }
  void end_game(const agents::GameEnd&) override {}

 private:
  std::string name_;
  Script script_;
  std::vector<std::thread> threads_;
};

inline Participant scripted(const std::string& name, Script script) {
  Participant p;
  p.name = name;
  p.make = [name, script]() -> std::expected<std::unique_ptr<agents::Agent>, agents::AgentError> {
    return std::make_unique<ScriptedAgent>(name, script);
  };
  return p;
}

inline config::TournamentConfig quick_config(std::vector<std::string> games, int32_t per_pairing) {
  config::TournamentConfig c;
  c.games = std::move(games);
  c.games_per_pairing = per_pairing;
  c.concurrency = 3;
  c.tick = std::chrono::milliseconds(1);
  c.move_deadline = std::chrono::milliseconds(20000);
  c.adjudication.max_plies = 60;
  c.seed = 7;
  return c;
}

inline RunOptions quiet_options(const fs::path& dir) {
  RunOptions o;
  o.output_dir = dir;
  o.quiet = true;
  o.config_hash = "test";
  return o;
}

inline fs::path pgn_extract_binary() {
  for (const char* p : {"/usr/bin/pgn-extract", "/usr/games/pgn-extract"})
    if (fs::exists(p)) return p;
  return {};
}

// pgn-extract's complaints about `pgn` (empty when it reads every game without error).
inline std::string pgn_extract_errors(const std::string& pgn, const fs::path& dir) {
  const fs::path bin = pgn_extract_binary();
  REQUIRE_FALSE(bin.empty());  // Debian's pgn-extract (scripts/deps.sh installs it)
  const fs::path file = dir / "chess_only.pgn";
  std::ofstream(file) << pgn;
  const std::string cmd = bin.string() + " -r -s " + file.string() + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  ::pclose(pipe);
  return out;
}

}  // namespace arena::test
