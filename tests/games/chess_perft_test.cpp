// Chess move generation against Stockfish 15.1's perft counts in the shared test data: every
// position of chess-standard.epd and chess-random.epd, depths 1-4 by default, deeper in [slow].
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "games/chess/chess_game.h"
#include "tests/common/testdata.h"

namespace {

struct PerftCase {
  std::string fen;
  int depth;
  uint64_t nodes;
};

// Every `;Dk n` of every line of an EPD file.
std::vector<PerftCase> read_epd(const std::filesystem::path& path) {
  std::vector<PerftCase> cases;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto semi = line.find(';');
    if (semi == std::string::npos) continue;
    const std::string fen = line.substr(0, semi);
    std::istringstream rest(line.substr(semi));
    std::string field;
    while (std::getline(rest, field, ';')) {
      std::istringstream parts(field);
      std::string tag;
      uint64_t nodes = 0;
      if (parts >> tag >> nodes && tag.size() > 1 && tag[0] == 'D')
        cases.push_back({fen, std::stoi(tag.substr(1)), nodes});
    }
  }
  return cases;
}

void check_epd(const std::filesystem::path& path, int min_depth, int max_depth) {
  const auto cases = read_epd(path);
  REQUIRE(!cases.empty());
  int checked = 0;
  for (const auto& c : cases) {
    if (c.depth < min_depth || c.depth > max_depth) continue;
    auto game = games::chess::make_chess_game(c.fen);
    INFO(c.fen << " depth " << c.depth);
    REQUIRE(game.has_value());
    CHECK((*game)->perft(c.depth) == c.nodes);
    ++checked;
  }
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("chess perft matches Stockfish on the standard positions to depth 4", "[games]") {
  ARENA_REQUIRE_TESTDATA(path, "perft/chess-standard.epd");
  check_epd(path, 1, 4);
}

TEST_CASE("chess perft matches Stockfish on the random positions to depth 4", "[games]") {
  ARENA_REQUIRE_TESTDATA(path, "perft/chess-random.epd");
  check_epd(path, 1, 4);
}

TEST_CASE("chess perft matches Stockfish on the standard positions beyond depth 4", "[games][slow]") {
  ARENA_REQUIRE_TESTDATA(path, "perft/chess-standard.epd");
  check_epd(path, 5, 99);
}

TEST_CASE("chess perft matches Stockfish 15.1 at depths 5 and 6", "[games][slow]") {
  // Counts from `go perft` of Debian's stockfish 15.1 (they are also the published values).
  const std::pair<const char*, std::pair<int, uint64_t>> cases[] = {
      {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", {6, 119060324}},
      {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", {5, 193690690}},
      {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", {6, 11030083}},
      {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", {5, 15833292}},
      {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", {5, 89941194}},
      {"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", {5, 164075551}},
  };
  for (const auto& [fen, expected] : cases) {
    auto game = games::chess::make_chess_game(fen);
    REQUIRE(game.has_value());
    INFO(fen);
    CHECK((*game)->perft(expected.first) == expected.second);
  }
}

TEST_CASE("chess perft_divide sums to perft and lists each legal move once", "[games]") {
  auto game =
      games::chess::make_chess_game("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
  REQUIRE(game.has_value());
  const auto divide = (*game)->perft_divide(3);
  auto moves = (*game)->legal_moves();
  REQUIRE(divide.size() == moves.size());
  uint64_t total = 0;
  for (const auto& [move, nodes] : divide) {
    total += nodes;
    CHECK(std::find(moves.begin(), moves.end(), move) != moves.end());
  }
  CHECK(total == 97862);
  CHECK(std::is_sorted(divide.begin(), divide.end()));
  CHECK((*game)->perft(0) == 1);
}
