// The `uci` agent: any UCI engine process (Stockfish, Fairy-Stockfish, ...) behind the Agent
// interface. Made by make_uci_agent, which starts the engine once to learn its name, options and
// variants (a missing binary or a failed handshake is an AgentError). Each game sets the variant
// (Fairy-Stockfish's UCI_Variant) and sends ucinewgame; each move sends `position` and `go` and
// waits for `bestmove` on the agent's worker thread. A crash, a hang past the deadline plus
// move_margin, garbage on stdout or an illegal move resolve the ticket with the matching
// FailureKind; the engine is then killed and started afresh for the next game.
#pragma once

#include <atomic>
#include <expected>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/uci/uci_process.h"
#include "agents/uci/uci_protocol.h"
#include "agents/worker_thread.h"

namespace agents {

// The UCI agent `config` describes: its engine found (an absolute path, or a name searched on
// env's PATH and /usr/games), started and questioned (uci, isready).
std::expected<std::unique_ptr<Agent>, AgentError> make_uci_agent(const AgentConfig& config,
                                                                 const AgentEnvironment& env);

class UciAgent final : public Agent {
 public:
  // An agent whose engine is already running and past the handshake (make_uci_agent does both).
  UciAgent(std::string name, std::vector<std::string> variants, UciAgentConfig config,
           std::string executable);
  ~UciAgent() override;

  // Starts the engine and runs the handshake; an error message when it fails.
  std::optional<std::string> start();

  const std::string& name() const override { return name_; }
  bool supports(std::string_view variant) const override;
  std::optional<MoveFailure> new_game(const GameStart& start) override;
  std::shared_ptr<MoveTicket> start_move(const MoveRequest& request) override;
  void end_game(const GameEnd& end) override;

  // The engine's `id name` (e.g. "Fairy-Stockfish 11.1 LB 64").
  const std::string& engine_name() const { return engine_name_; }
  // The running engine's process id, or -1 (for tests that kill it).
  int engine_pid() const;

 private:
  // Worker thread: (re)starts the process and runs uci / setoption / isready.
  std::optional<MoveFailure> launch();
  // Worker thread: sends isready and reads up to readyok (dropping what comes before it).
  std::optional<MoveFailure> sync(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel);
  // Worker thread: one move, from `position` to a resolved result.
  MoveResult play(const MoveRequest& request, const std::atomic<bool>& cancel);
  // Reads the engine's answer to the `go` just sent into `result`: its bestmove (checked against
  // the request's position), or why there is none by `until` (the deadline plus the margin).
  MoveResult read_answer(const MoveRequest& request, const std::string& variant, Clock::time_point until,
                         const std::atomic<bool>& cancel, MoveResult result);
  // Worker thread: sets the engine up for a game of `variant` (UCI_Variant, ucinewgame, isready).
  std::optional<MoveFailure> begin_game(const std::string& variant);
  // Worker thread: reads up to the bestmove of a stopped search (or drops the engine).
  void drain();
  // Worker thread: the engine misbehaved; end it now, start a new one at the next game.
  void drop_engine();
  bool has_option(const std::string& name) const;

  std::string name_;
  std::vector<std::string> variants_;
  UciAgentConfig config_;
  std::string executable_;
  std::string engine_name_;
  std::vector<uci::OptionInfo> options_;
  std::set<std::string, std::less<>> playable_;  // variants the engine plays, fixed by start()

  mutable std::mutex process_mutex_;  // guards process_ (replaced on the worker, read by engine_pid)
  std::unique_ptr<uci::UciProcess> process_;
  bool needs_drain_ = false;    // a cancelled search's bestmove is still to come
  bool needs_restart_ = false;  // the engine was killed after misbehaving
  std::string variant_;         // the variant the engine is set up for

  std::atomic<bool> closing_{false};
  std::mutex cancel_mutex_;
  std::shared_ptr<std::atomic<bool>> current_cancel_;
  WorkerThread worker_;  // last: joined before the rest goes
};

}  // namespace agents
