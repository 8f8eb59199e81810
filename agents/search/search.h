// The built-in search as a function: iterative-deepening alpha-beta over a game given as its start
// FEN and the UCI moves played, limited by depth, nodes, a stop time and a cancel flag. Chess and
// every janggi rule set run on the native rule types of games/ (no strings in the search).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agents::search {

using Clock = std::chrono::steady_clock;

// Scores are centipawns from the side to move; mates are kMateScore minus the plies to mate.
inline constexpr int kMateScore = 32000;
inline constexpr int kMaxPly = 128;

struct SearchLimits {
  std::optional<int32_t> depth;               // plies of full-width search (plus quiescence)
  std::optional<int64_t> nodes;               // stop after about this many nodes
  std::optional<Clock::time_point> stop;      // stop at this time
  const std::atomic<bool>* cancel = nullptr;  // stop as soon as this turns true
  uint64_t seed = 0;                          // orders equal root moves
};

struct SearchReport {
  std::string best_move;           // UCI
  int32_t score = 0;               // centipawns from the mover's side
  std::optional<int32_t> mate_in;  // moves to mate (negative: being mated)
  int32_t depth = 0;               // the deepest iteration completed
  int64_t nodes = 0;
  double seconds = 0;
  std::vector<std::string> pv;  // principal variation, UCI
  bool stopped = false;         // a limit other than depth ended the search
  bool cancelled = false;       // the cancel flag ended it
};

// Searches the position reached from `start_fen` (the variant's start when empty) by `moves`.
// An error names what could not be read (unknown variant, bad FEN, illegal move) or says that
// the game is over.
std::expected<SearchReport, std::string> search_position(std::string_view variant, std::string_view start_fen,
                                                         const std::vector<std::string>& moves,
                                                         const SearchLimits& limits);

// The variants the search plays ("chess" and the janggi rule sets).
bool search_supports(std::string_view variant);

}  // namespace agents::search
