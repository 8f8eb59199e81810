// Janggi perft against Fairy-Stockfish 11.1's counts (../shared/testdata/perft/janggi-*.epd):
// every position at every depth up to 4 in the default suite; depth-5 counts made here with the
// same engine are tagged [slow].
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "games/janggi/janggi_game.h"
#include "tests/common/testdata.h"

namespace {

struct EpdLine {
  std::string fen;
  std::vector<std::pair<int, uint64_t>> counts;  // (depth, leaf nodes)
};

// Reads "FEN ;D1 n ;D2 n ..." lines.
std::vector<EpdLine> read_epd(const std::filesystem::path& path) {
  std::vector<EpdLine> lines;
  std::ifstream in(path);
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty()) continue;
    std::istringstream fields(text);
    EpdLine line;
    std::string part;
    std::getline(fields, line.fen, ';');
    while (!line.fen.empty() && line.fen.back() == ' ') line.fen.pop_back();
    while (std::getline(fields, part, ';')) {
      std::istringstream counts(part);
      std::string depth;
      uint64_t nodes = 0;
      counts >> depth >> nodes;
      line.counts.emplace_back(std::stoi(depth.substr(1)), nodes);
    }
    lines.push_back(line);
  }
  return lines;
}

void check_file(const std::filesystem::path& path, int max_depth) {
  const std::vector<EpdLine> lines = read_epd(path);
  REQUIRE(!lines.empty());
  for (const EpdLine& line : lines) {
    auto game = games::janggi::make_janggi_game("janggi", line.fen);
    INFO("FEN: " << line.fen);
    REQUIRE(game.has_value());
    CHECK((*game)->fen() == line.fen);
    for (const auto& [depth, nodes] : line.counts) {
      if (depth > max_depth) continue;
      INFO("depth " << depth);
      CHECK((*game)->perft(depth) == nodes);
    }
  }
}

}  // namespace

TEST_CASE("janggi perft matches Fairy-Stockfish on its own test positions", "[games][janggi]") {
  ARENA_REQUIRE_TESTDATA(path, "perft/janggi-standard.epd");
  check_file(path, 4);
}

TEST_CASE("janggi perft matches Fairy-Stockfish on random positions from all 16 setups", "[games][janggi]") {
  ARENA_REQUIRE_TESTDATA(path, "perft/janggi-random.epd");
  check_file(path, 4);
}

TEST_CASE("janggi perft_divide sums to perft and lists every legal move once", "[games][janggi]") {
  auto game = games::janggi::make_janggi_game("janggi", "");
  REQUIRE(game.has_value());
  const auto divide = (*game)->perft_divide(3);
  REQUIRE(divide.size() == 32);
  uint64_t total = 0;
  for (const auto& [move, nodes] : divide) total += nodes;
  CHECK(total == 33000);
  CHECK((*game)->legal_moves().size() == divide.size());
}

TEST_CASE("janggi perft at depth 5 on Fairy-Stockfish's test positions", "[games][janggi][slow]") {
  // Fairy-Stockfish 11.1, variant janggi, go perft 5.
  const std::pair<const char*, uint64_t> cases[] = {
      {"rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1", 35243995},
      {"1n1kaabn1/cr2N4/5C1c1/p1pNp3p/9/9/P1PbP1P1P/3r1p3/4A4/R1BA1KB1R b - - 0 1", 3372364},
      {"1Pbcka3/3nNn1c1/N2CaC3/1pB6/9/9/5P3/9/4K4/9 w - - 0 23", 3538103},
  };
  for (const auto& [fen, nodes] : cases) {
    auto game = games::janggi::make_janggi_game("janggi", fen);
    INFO("FEN: " << fen);
    REQUIRE(game.has_value());
    CHECK((*game)->perft(5) == nodes);
  }
}
