// The asynchronous interface every player implements (LLM, UCI engine, built-in search, random).
// The arena asks each game's side to move with start_move(), which returns at once with a
// MoveTicket; the ticket resolves exactly once to a MoveResult: a legal move in UCI, or a typed
// failure. An agent's misbehaviour (illegal or unparseable answer, timeout, crashed process,
// backend error) is a MoveResult, never an exception that escapes.
//
// One Agent instance plays one game at a time: the arena keeps one instance per seat in flight
// and reuses it for later games through new_game() / end_game().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "games/game.h"

namespace agents {

using Clock = std::chrono::steady_clock;

// Why an agent produced no playable move.
enum class FailureKind {
  Illegal,       // it answered a move that is not legal here
  Unparseable,   // its answer holds no move at all
  Timeout,       // no answer before the deadline
  Crashed,       // its process died or its pipe broke
  BackendError,  // the model backend refused or failed (HTTP error, engine error)
  Cancelled,     // the arena cancelled the request
};

// "illegal", "unparseable", "timeout", "crashed", "backend_error", "cancelled".
const char* to_string(FailureKind kind);
// The kind a string names (the inverse of to_string), or nullopt.
std::optional<FailureKind> parse_failure_kind(std::string_view text);

struct MoveFailure {
  FailureKind kind = FailureKind::BackendError;
  std::string message;  // what happened, for the event log ("answer 'Qh9' is not a legal move: ...")
};

// What an agent did for one move.
struct MoveResult {
  std::string move;                    // the legal move in UCI; empty on failure (or resignation)
  std::optional<MoveFailure> failure;  // set when no move is played
  bool resigned = false;               // the agent gave up (on_failure: resign, or a UCI engine's resign)
  std::string raw;                     // what the agent actually said (model text, engine output line)
  std::string reasoning;               // reason mode: the free text before the move
  std::string prompt;                  // the prompt text sent (LLM) or the position command (UCI)
  int32_t num_prompt_tokens = 0;
  int32_t num_cached_tokens = 0;  // prompt tokens served from a prefix cache
  int32_t num_completion_tokens = 0;
  int32_t num_retries = 0;          // free mode: answers rejected before this one
  double queue_seconds = 0;         // waiting before the backend started on it
  double ttft_seconds = 0;          // time to the first token (LLM), 0 otherwise
  double total_seconds = 0;         // start_move -> resolved
  std::optional<int32_t> score_cp;  // the engine's own evaluation, centipawns from its side (UCI, search)
  std::optional<int32_t> mate_in;   // moves to mate by its own evaluation (negative: being mated)
  std::string replica;              // an LLM agent on a fleet: the replica of its last request (base URL)

  bool ok() const { return !failure && !resigned && !move.empty(); }
};

// A pending move. Resolves exactly once; every method is thread-safe.
class MoveTicket {
 public:
  // Whether the result is in.
  bool ready() const;
  // Waits until the result is in, at most `timeout`; the result then, or nullopt.
  std::optional<MoveResult> wait_for(std::chrono::milliseconds timeout) const;
  // Waits for the result.
  MoveResult wait() const;
  // Asks the agent to stop thinking; the ticket still resolves (with Cancelled, or with the move
  // if it was already found). Safe to call at any time, more than once.
  void cancel();
  // Whether cancel() was called.
  bool cancelled() const;

  // For agents: sets the result (the first call wins, later ones are ignored), then calls the
  // request's on_ready callback outside any lock.
  void resolve(MoveResult result);
  // For agents: what cancel() does (called at most once, from the cancelling thread; at once if
  // cancel() came first).
  void set_cancel_hook(std::function<void()> hook);
  // For agents: the callback resolve() calls; set by the agent from MoveRequest::on_ready.
  void set_on_ready(std::function<void()> on_ready);

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  std::optional<MoveResult> result_;
  std::function<void()> cancel_hook_;
  std::function<void()> on_ready_;
  bool cancelled_ = false;
};

// The time left on both clocks when the tournament has clocks.
struct ClockState {
  std::chrono::milliseconds first_remaining{0};   // white / Cho
  std::chrono::milliseconds second_remaining{0};  // black / Han
  std::chrono::milliseconds increment{0};
};

// Everything an agent may know when asked for a move.
// A position's legal moves in UCI and, index-aligned, in human notation (chess SAN, janggi Korean).
struct LegalMoves {
  std::vector<std::string> uci, human;
};

// The legal moves of `game`, computed now.
std::shared_ptr<const LegalMoves> compute_legal_moves(const games::Game& game);

struct MoveRequest {
  std::shared_ptr<const games::Game> game;  // the current position (an independent copy)
  // The position's legal moves, computed once per ply by the caller (the runner) and shared with
  // whoever needs them; null = the agent computes them (legal_moves below).
  std::shared_ptr<const LegalMoves> legal;
  std::string start_fen;            // the game's starting position
  std::vector<std::string> moves;   // the moves played from start_fen, in UCI
  std::string opponent;             // the other agent's name
  std::optional<ClockState> clock;  // when the tournament has clocks
  Clock::time_point deadline;       // answer before this (the tick's deadline or the clock)
  int32_t priority = 0;             // smaller is more urgent among equal deadlines
  std::function<void()> on_ready;   // called once, on any thread (even inside start_move),
                                    // when the ticket resolves; quick, never blocking
};

// The start of a game, as an agent sees it.
struct GameStart {
  std::string game_id;
  std::string variant;
  std::string start_fen;
  games::Side side = games::Side::First;  // the side this agent plays
  std::string opponent;
};

// The end of a game: the result string ("1-0", "0-1", "1/2-1/2", "*") and the reason.
struct GameEnd {
  std::string result;
  std::string reason;
};

class Agent {
 public:
  virtual ~Agent() = default;

  // The agent's name, as in the tournament config.
  virtual const std::string& name() const = 0;
  // Whether it can play `variant` ("chess", "janggi", ...).
  virtual bool supports(std::string_view variant) const = 0;

  // A new game begins (a UCI engine gets ucinewgame; a conversation is cleared). An error message
  // when the agent cannot play it (engine failed to start); the arena then scores it as a loss.
  virtual std::optional<MoveFailure> new_game(const GameStart& start) = 0;
  // Asks for a move; returns at once. Never throws.
  virtual std::shared_ptr<MoveTicket> start_move(const MoveRequest& request) = 0;
  // The game is over (any pending ticket has been resolved or cancelled).
  virtual void end_game(const GameEnd& end) = 0;
};

// A ticket already resolved to `result` (for agents that answer synchronously).
std::shared_ptr<MoveTicket> resolved_ticket(MoveResult result, const MoveRequest& request);

// The request's legal moves: `request.legal`, or computed from `request.game` when it is null.
std::shared_ptr<const LegalMoves> legal_moves(const MoveRequest& request);

}  // namespace agents
