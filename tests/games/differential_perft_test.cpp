// Differential move generation: positions from random legal games (and, when given, the FEN fuzz
// corpora) are counted by arena's perft and by the reference engines' UCI `go perft` (Debian's
// /usr/games/stockfish for chess, /usr/games/fairy-stockfish for the janggi rule sets), and must
// agree. A disagreement is reported with the FEN and the root moves whose counts differ; the one
// known, explained difference (Fairy-Stockfish counting the capture of a general, see compare) is
// counted apart.
// [slow]: ARENA_DIFF_POSITIONS positions per variant (default 300) at depth ARENA_DIFF_DEPTH
// (default 3); ARENA_DIFF_CHESS_FENS / ARENA_DIFF_JANGGI_FENS name folders of one-FEN files (the
// fuzz corpora) to check as well. Skipped with a message when an engine is not installed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "games/game.h"
#include "tests/games/uci_perft_reference.h"

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// Positions reached by `count` random games of up to 120 plies from `variant`'s start, one
// position sampled from each game at a random ply (seeded, so a failure reproduces).
std::vector<std::string> random_positions(const std::string& variant, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> fens;
  for (int g = 0; g < count; ++g) {
    auto game = std::move(*games::make_game(variant));
    const int plies = static_cast<int>(rng() % 121);
    for (int p = 0; p < plies && !game->outcome().finished(); ++p) {
      const auto moves = game->legal_moves();
      if (moves.empty()) break;
      REQUIRE(game->apply(moves[rng() % moves.size()]));
    }
    fens.push_back(game->fen());
  }
  return fens;
}

// FENs of the files in $env (a fuzz corpus folder) that `variant` accepts.
std::vector<std::string> corpus_positions(const char* env, const std::string& variant) {
  std::vector<std::string> fens;
  const char* dir = std::getenv(env);
  if (!dir || !std::filesystem::is_directory(dir)) return fens;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (auto game = games::make_game(variant, text.str())) fens.push_back((*game)->fen());
  }
  return fens;
}

struct Tally {
  int checked = 0;
  int disagreements = 0;
  int general_captures = 0;  // explained disagreements (see compare)
};

// The destination square of a UCI move ("f1f9" -> "f9", "a10a9" -> "a9"; promotions dropped).
std::string destination(const std::string& move) {
  size_t i = 1;
  while (i < move.size() && std::isdigit(static_cast<unsigned char>(move[i]))) ++i;
  size_t j = i + 1;
  while (j < move.size() && std::isdigit(static_cast<unsigned char>(move[j]))) ++j;
  return move.substr(i, j - i);
}

// The square of the king / general of the side not to move.
std::string opponent_royal_square(const games::Game& game) {
  const auto view = game.board_view();
  const auto opponent = games::opponent(view.side_to_move);
  for (const auto& square : view.squares)
    if (square.piece && square.piece->side == opponent &&
        (square.piece->letter == 'K' || square.piece->letter == 'k'))
      return square.name;
  return {};
}

// Compares arena and the engine on every FEN; returns how many were checked.
Tally compare(const std::string& variant, const std::string& engine_path,
              const std::vector<std::string>& fens, int depth) {
  Tally t;
  auto engine = arena::test::UciPerftReference::start(engine_path, variant == "chess" ? "" : variant);
  if (!engine) {
    WARN("SKIPPED: " << engine_path << " is not installed or does not speak UCI");
    return t;
  }
  for (const auto& fen : fens) {
    auto made = games::make_game(variant, fen);
    if (!made) {  // arena wrote a FEN it cannot read back: a round-trip failure, reported as one
      FAIL_CHECK(variant << " " << fen << ": arena cannot read back its own FEN: " << made.error().message);
      ++t.disagreements;
      continue;
    }
    auto game = std::move(*made);
    const auto ref = engine->perft(fen, depth, std::chrono::seconds(60));
    REQUIRE(ref);  // the engine answered in time
    const uint64_t ours = game->perft(depth);
    ++t.checked;
    if (ours == ref->total) continue;
    // Janggi lets a player in check pass while the generals face each other (bikjang), so a
    // position can have the side to move attacking the opponent's general. Fairy-Stockfish then
    // counts the capture of the general as a move; arena does not (a general is never captured).
    // When that root move is the whole difference, it is counted apart, not as a failure.
    const auto ours_divide = game->perft_divide(depth);
    const std::string royal = opponent_royal_square(*game);
    uint64_t captured = 0;
    bool only_captures = true;
    for (const auto& [move, nodes] : ref->divide) {
      const bool ours_has =
          std::any_of(ours_divide.begin(), ours_divide.end(), [&](const auto& d) { return d.first == move; });
      if (!ours_has && destination(move) == royal)
        captured += nodes;
      else if (!ours_has)
        only_captures = false;
    }
    for (const auto& [move, nodes] : ours_divide) {
      const auto it = ref->divide.find(move);
      if (it == ref->divide.end() || it->second != nodes) only_captures = false;
    }
    if (only_captures && captured > 0 && ours + captured == ref->total) {
      ++t.general_captures;
      WARN(variant << " " << fen << ": the engine also counts capturing the general on " << royal << " ("
                   << captured << " nodes); arena does not");
      continue;
    }
    ++t.disagreements;
    std::string detail;
    for (const auto& [move, nodes] : ours_divide) {
      const auto it = ref->divide.find(move);
      if (it == ref->divide.end())
        detail += " " + move + " (only arena: " + std::to_string(nodes) + ")";
      else if (it->second != nodes)
        detail +=
            " " + move + " (arena " + std::to_string(nodes) + ", engine " + std::to_string(it->second) + ")";
    }
    for (const auto& [move, nodes] : ref->divide)
      if (!game->parse_move(move)) detail += " " + move + " (only engine: " + std::to_string(nodes) + ")";
    FAIL_CHECK(variant << " " << fen << " depth " << depth << ": arena " << ours << ", " << engine_path << " "
                       << ref->total << ";" << detail);
  }
  return t;
}

}  // namespace

TEST_CASE("perft agrees with Stockfish and Fairy-Stockfish on random positions", "[games][slow]") {
  const int count = env_int("ARENA_DIFF_POSITIONS", 300);
  const int depth = env_int("ARENA_DIFF_DEPTH", 3);
  const auto start = std::chrono::steady_clock::now();
  uint64_t seed = 20261201;
  for (const std::string variant : {"chess", "janggi", "janggimodern", "janggicasual", "janggitraditional"}) {
    auto fens = random_positions(variant, count, seed++);
    const auto extra =
        corpus_positions(variant == "chess" ? "ARENA_DIFF_CHESS_FENS" : "ARENA_DIFF_JANGGI_FENS", variant);
    fens.insert(fens.end(), extra.begin(), extra.end());
    const std::string engine = variant == "chess" ? "/usr/games/stockfish" : "/usr/games/fairy-stockfish";
    const Tally t = compare(variant, engine, fens, depth);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN(variant << ": " << t.checked << " positions (" << extra.size() << " from the fuzz corpus) at depth "
                 << depth << ", " << t.disagreements << " disagreements, " << t.general_captures
                 << " explained by general captures, " << seconds << " s so far");
    CHECK(t.disagreements == 0);
  }
}
