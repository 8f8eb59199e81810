// Robustness: random bytes and mutated FENs into the FEN reader, random text into the move
// reader and PGN reader. Bad input must come back as an error; accepted input must give a
// consistent position. (Run under ARENA_SANITIZE=ON to catch undefined behaviour too.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "games/chess/chess_game.h"
#include "games/chess/pgn.h"

namespace {

const std::vector<std::string> kSeeds{
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r2r3k/p7/3p4/8/8/P6P/8/R3K2R b KQq - 0 1",
    "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",
};

constexpr std::string_view kFenAlphabet = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789 ";

std::string random_bytes(std::mt19937& rng, size_t max_len) {
  std::string s(std::uniform_int_distribution<size_t>(0, max_len)(rng), '\0');
  for (auto& c : s) c = char(std::uniform_int_distribution<int>(0, 255)(rng));
  return s;
}

std::string mutate(std::string s, std::mt19937& rng) {
  const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int i = 0; i < edits; ++i) {
    const size_t at = s.empty() ? 0 : std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng);
    const char c = kFenAlphabet[std::uniform_int_distribution<size_t>(0, kFenAlphabet.size() - 1)(rng)];
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
      case 0:
        if (!s.empty()) s[at] = c;
        break;
      case 1:
        s.insert(s.begin() + at, c);
        break;
      case 2:
        if (!s.empty()) s.erase(at, 1);
        break;
      default:
        if (!s.empty()) std::swap(s[at], s[std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng)]);
        break;
    }
  }
  return s;
}

// An accepted position must be self-consistent: FEN round trip, SAN/UCI agreement, perft.
void check_consistent(const games::Game& game) {
  const auto again = games::chess::make_chess_game(game.fen());
  REQUIRE(again.has_value());
  CHECK((*again)->fen() == game.fen());
  const auto uci = game.legal_moves();
  const auto san = game.legal_moves_human();
  REQUIRE(uci.size() == san.size());
  for (size_t i = 0; i < uci.size(); ++i) CHECK(game.parse_move(san[i]).value_or("") == uci[i]);
  CHECK(game.perft(1) == uci.size());
  (void)game.perft(2);
  (void)game.outcome();
  CHECK(game.board_view().squares.size() == 64);
  (void)game.render_text();
}

}  // namespace

TEST_CASE("random bytes never crash the FEN reader", "[games]") {
  std::mt19937 rng(1);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto text = random_bytes(rng, 90);
    const auto game = games::chess::make_chess_game(text);
    if (!game) {
      CHECK(!game.error().message.empty());
    } else {
      ++accepted;  // only the empty string (the start position) or whitespace-free luck
    }
  }
  CHECK(accepted < 3000);
}

TEST_CASE("mutated FENs are rejected with a message or accepted consistently", "[games]") {
  std::mt19937 rng(2);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string fen = mutate(kSeeds[i % kSeeds.size()], rng);
    const auto game = games::chess::make_chess_game(fen);
    INFO(fen);
    if (!game) {
      CHECK(game.error().message.rfind("FEN", 0) == 0);
      ++rejected;
      continue;
    }
    ++accepted;
    check_consistent(**game);
  }
  CHECK(accepted > 100);
  CHECK(rejected > 100);
}

TEST_CASE("random text never crashes the move reader", "[games]") {
  std::mt19937 rng(3);
  constexpr std::string_view kMoveAlphabet = "abcdefgh12345678NBRQKPnbrqkxX=+#-0Oo!?()/:. ";
  for (const auto& fen : kSeeds) {
    auto game = std::move(*games::chess::make_chess_game(fen));
    const auto legal = game->legal_moves();
    for (int i = 0; i < 1500; ++i) {
      std::string text;
      if (i % 3 == 0) {
        text = random_bytes(rng, 12);
      } else {
        const size_t len = std::uniform_int_distribution<size_t>(0, 8)(rng);
        for (size_t k = 0; k < len; ++k)
          text += kMoveAlphabet[std::uniform_int_distribution<size_t>(0, kMoveAlphabet.size() - 1)(rng)];
      }
      const auto move = game->parse_move(text);
      INFO(fen << " / '" << text << "'");
      if (move)
        CHECK(std::find(legal.begin(), legal.end(), *move) != legal.end());
      else
        CHECK(!move.error().message.empty());
      CHECK(game->apply(text).has_value() == move.has_value());
      if (move) REQUIRE(game->undo());
    }
    CHECK(game->fen() == fen);
  }
}

TEST_CASE("random text never crashes the PGN reader", "[games]") {
  std::mt19937 rng(4);
  const std::string pgn =
      "[Event \"x\"]\n[FEN \"" + kSeeds[1] + "\"]\n\n1. e5 {c} (1. d6) d5 $2 2. exd6 e.p. *\n";
  for (int i = 0; i < 2000; ++i) {
    const auto text = i % 2 ? random_bytes(rng, 200) : mutate(pgn, rng);
    const auto games = games::chess::read_pgn(text);
    if (!games) CHECK(games.error().message.rfind("PGN line ", 0) == 0);
  }
}
