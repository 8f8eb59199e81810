// Chess notation: SAN, UCI and FEN round trips over random games from the perft positions,
// SAN writing details, forgiving SAN/UCI reading, and the errors for moves that cannot be played.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "games/chess/chess_game.h"
#include "tests/common/testdata.h"

namespace {

using games::Game;

std::unique_ptr<Game> game_from(const std::string& fen) {
  auto game = games::chess::make_chess_game(fen);
  INFO(fen);
  REQUIRE(game.has_value());
  return std::move(*game);
}

std::string parse(const Game& game, const std::string& text) {
  const auto move = game.parse_move(text);
  INFO(text << ": " << (move ? "" : move.error().message));
  REQUIRE(move.has_value());
  return *move;
}

std::string parse_error(const Game& game, const std::string& text) {
  const auto move = game.parse_move(text);
  INFO(text << " -> " << (move ? *move : ""));
  REQUIRE(!move.has_value());
  return move.error().message;
}

std::vector<std::string> epd_fens() {
  std::vector<std::string> fens;
  for (const char* file : {"perft/chess-standard.epd", "perft/chess-random.epd"}) {
    const auto path = arena::test::testdata_file(file);
    if (!path) continue;
    std::ifstream in(*path);
    for (std::string line; std::getline(in, line);)
      if (const auto semi = line.find(';'); semi != std::string::npos) fens.push_back(line.substr(0, semi));
  }
  return fens;
}

}  // namespace

TEST_CASE("SAN, UCI and FEN survive round trips through random games", "[games]") {
  auto fens = epd_fens();
  // Random games from the start position too: over 100 positions even without the test data.
  fens.insert(fens.end(), 4, "");
  std::mt19937 rng(20261130);
  int positions = 0;
  for (const auto& fen : fens) {
    auto game = game_from(fen);
    for (int ply = 0; ply < 80 && !game->outcome().finished(); ++ply) {
      const auto uci = game->legal_moves();
      const auto san = game->legal_moves_human();
      REQUIRE(uci.size() == san.size());
      REQUIRE(std::set<std::string>(san.begin(), san.end()).size() == san.size());
      for (size_t i = 0; i < uci.size(); ++i) {
        INFO(game->fen() << " move " << uci[i] << " / " << san[i]);
        CHECK(parse(*game, san[i]) == uci[i]);
        CHECK(parse(*game, uci[i]) == uci[i]);
      }
      // FEN -> position -> FEN, and the same legal moves from the re-read position.
      const auto copy = game_from(game->fen());
      CHECK(copy->fen() == game->fen());
      CHECK(copy->legal_moves() == uci);
      ++positions;
      const std::string before = game->fen();
      const auto& move = uci[std::uniform_int_distribution<size_t>(0, uci.size() - 1)(rng)];
      REQUIRE(game->apply(move).has_value());
      REQUIRE(game->undo());
      CHECK(game->fen() == before);
      REQUIRE(game->apply(move).has_value());
    }
  }
  CHECK(positions > 100);
}

TEST_CASE("SAN is written with disambiguation, captures, promotions and check marks", "[games]") {
  // Knights on b1 and f3 both reach d2; rooks on a1 and a5 both reach a3; three queens reach b2.
  auto game = game_from("4k3/8/8/R7/8/Q7/8/QNQ1K3 w - - 0 1");
  const auto san = game->legal_moves_human();
  const auto has = [&](const std::string& s) { return std::find(san.begin(), san.end(), s) != san.end(); };
  CHECK(has("Qa1b2"));
  CHECK(has("Qcb2"));
  CHECK(has("Q3b2"));
  CHECK(has("Nd2"));
  CHECK(has("Ra4"));
  CHECK(has("Ra8+"));

  auto knights = game_from("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
  const auto nsan = knights->legal_moves_human();
  CHECK(std::find(nsan.begin(), nsan.end(), "Nbd2") != nsan.end());
  CHECK(std::find(nsan.begin(), nsan.end(), "Nfd2") != nsan.end());
  CHECK(parse_error(*knights, "Nd2").find("ambiguous") != std::string::npos);

  auto mate = game_from("");
  for (const char* m : {"e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"}) REQUIRE(mate->apply(m).has_value());
  const auto mate_san = mate->legal_moves_human();
  CHECK(std::find(mate_san.begin(), mate_san.end(), "Qxf7#") != mate_san.end());
  CHECK(std::find(mate_san.begin(), mate_san.end(), "Bxf7+") != mate_san.end());

  auto promo = game_from("3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1");
  const auto psan = promo->legal_moves_human();
  for (const char* s : {"e8=Q+", "e8=R+", "e8=B", "e8=N", "exd8=Q+", "exd8=N"})
    CHECK(std::find(psan.begin(), psan.end(), s) != psan.end());

  auto castle = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  const auto csan = castle->legal_moves_human();
  CHECK(std::find(csan.begin(), csan.end(), "O-O") != csan.end());
  CHECK(std::find(csan.begin(), csan.end(), "O-O-O") != csan.end());
}

TEST_CASE("move reading accepts common sloppy forms", "[games]") {
  auto start = game_from("");
  CHECK(parse(*start, "e4") == "e2e4");
  CHECK(parse(*start, " Nf3 ") == "g1f3");
  CHECK(parse(*start, "nf3") == "g1f3");
  CHECK(parse(*start, "Ng1f3") == "g1f3");
  CHECK(parse(*start, "Ng1-f3") == "g1f3");
  CHECK(parse(*start, "e2-e4") == "e2e4");
  CHECK(parse(*start, "Pe4") == "e2e4");
  CHECK(parse(*start, "e4!?") == "e2e4");
  CHECK(parse(*start, "Nf3+") == "g1f3");  // a wrong check mark is forgiven

  auto promo = game_from("3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1");
  CHECK(parse(*promo, "e8Q") == "e7e8q");
  CHECK(parse(*promo, "e8=Q") == "e7e8q");
  CHECK(parse(*promo, "e8=q+") == "e7e8q");
  CHECK(parse(*promo, "e8(N)") == "e7e8n");
  CHECK(parse(*promo, "e8/R") == "e7e8r");
  CHECK(parse(*promo, "exd8=B") == "e7d8b");
  CHECK(parse(*promo, "ed8N") == "e7d8n");
  CHECK(parse(*promo, "e7e8Q") == "e7e8q");
  CHECK(parse_error(*promo, "e8").find("must promote") != std::string::npos);
  CHECK(parse_error(*promo, "e7e8").find("e7e8q") != std::string::npos);

  auto castle = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  CHECK(parse(*castle, "O-O") == "e1g1");
  CHECK(parse(*castle, "0-0") == "e1g1");
  CHECK(parse(*castle, "o-o") == "e1g1");
  CHECK(parse(*castle, "O-O-O+") == "e1c1");
  CHECK(parse(*castle, "0-0-0") == "e1c1");
  CHECK(parse(*castle, "e1h1") == "e1g1");
  CHECK(parse(*castle, "e1a1") == "e1c1");

  auto ep = game_from("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
  CHECK(parse(*ep, "exd6") == "e5d6");
  CHECK(parse(*ep, "exd6 e.p.") == "e5d6");
  CHECK(parse(*ep, "exd6e.p.") == "e5d6");
  CHECK(parse(*ep, "ed6") == "e5d6");
}

TEST_CASE("unplayable moves get errors that say why", "[games]") {
  auto start = game_from("");
  CHECK(parse_error(*start, "").find("empty") != std::string::npos);
  CHECK(parse_error(*start, "xyz").find("cannot read 'xyz'") != std::string::npos);
  CHECK(parse_error(*start, "e2e5") == "illegal move e2e5: the pawn on e2 cannot reach e5");
  CHECK(parse_error(*start, "e3e4") == "illegal move e3e4: there is no piece on e3");
  CHECK(parse_error(*start, "e7e5") ==
        "illegal move e7e5: the pawn on e7 is black's, and it is white's move");
  CHECK(parse_error(*start, "e5") == "illegal move e5: no white pawn can move to e5");
  CHECK(parse_error(*start, "Nf6") == "illegal move Nf6: no white knight can move to f6");
  CHECK(parse_error(*start, "O-O").find("cannot castle") != std::string::npos);
  CHECK(parse_error(*start, "e2e4q").find("only a pawn reaching the last rank promotes") !=
        std::string::npos);
  CHECK(parse_error(*start, "Ze4").find("cannot read") != std::string::npos);

  // The knight on d2 is pinned by the bishop on b4.
  auto pinned = game_from("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1");
  CHECK(parse_error(*pinned, "Nf3") == "illegal move Nf3: it would leave the white king in check");
  CHECK(parse_error(*pinned, "d2f3") == "illegal move d2f3: it would leave the white king in check");
  // In check from the rook on e8, a move elsewhere does not help.
  auto check = game_from("4r1k1/8/8/8/8/8/P7/4K3 w - - 0 1");
  CHECK(parse_error(*check, "a3") ==
        "illegal move a3: the white king is in check and this move does not end the check");
  CHECK(parse_error(*check, "Ke2").find("in check") != std::string::npos);
  CHECK(parse_error(*check, "O-O") == "illegal move O-O: white has no right to castle king-side");
}
