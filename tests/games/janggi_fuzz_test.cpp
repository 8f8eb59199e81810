// Janggi robustness: random bytes and mutated FENs and moves fed to make_janggi_game and
// parse_move must give an error or a consistent game, never a crash.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "games/janggi/fen.h"
#include "games/janggi/janggi_game.h"

namespace {

// Checks a game the factory accepted: its FEN reads back, moves list and parse, perft runs.
void check_consistent(const games::Game& game) {
  auto again = games::janggi::make_janggi_game("janggi", game.fen());
  REQUIRE(again.has_value());
  CHECK((*again)->fen() == game.fen());
  const auto moves = game.legal_moves();
  CHECK(moves.size() == game.legal_moves_human().size());
  for (const auto& m : moves) CHECK(game.parse_move(m).value() == m);
  CHECK(game.perft(2) == [&] {
    uint64_t total = 0;
    for (const auto& [move, nodes] : game.perft_divide(2)) total += nodes;
    return total;
  }());
  CHECK_FALSE(game.render_text().empty());
  CHECK(game.board_view().squares.size() == 90);
}

// Whether `text` is valid UTF-8 (error messages may end up in JSON).
bool valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80           ? 1
                          : (lead >> 5) == 0x6  ? 2
                          : (lead >> 4) == 0xe  ? 3
                          : (lead >> 3) == 0x1e ? 4
                                                : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return false;
    i += length;
  }
  return true;
}

std::string mutate(std::string text, std::mt19937& rng) {
  const std::string alphabet = "kabnrcpKABNRCPEHeh0123456789/ -wbx\t\xff";
  const int edits = 1 + int(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    const size_t at = text.empty() ? 0 : rng() % text.size();
    switch (rng() % 3) {
      case 0:
        if (!text.empty()) text[at] = alphabet[rng() % alphabet.size()];
        break;
      case 1:
        text.insert(text.begin() + long(at), alphabet[rng() % alphabet.size()]);
        break;
      default:
        if (!text.empty()) text.erase(at, 1);
        break;
    }
  }
  return text;
}

}  // namespace

TEST_CASE("janggi factory survives random bytes", "[games][janggi]") {
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes(rng() % 80, '\0');
    for (char& c : bytes) c = char(rng() % 256);
    auto game = games::janggi::make_janggi_game("janggi", bytes);
    if (game) {
      check_consistent(**game);
    } else {
      CHECK_FALSE(game.error().message.empty());
      CHECK(valid_utf8(game.error().message));
    }
  }
}

TEST_CASE("janggi factory survives mutated FENs", "[games][janggi]") {
  std::mt19937 rng(11);
  const std::string seeds[] = {
      games::janggi::start_fen(),
      "1n1kaabn1/cr2N4/5C1c1/p1pNp3p/9/9/P1PbP1P1P/3r1p3/4A4/R1BA1KB1R b - - 0 1",
      "1Pbcka3/3nNn1c1/N2CaC3/1pB6/9/9/5P3/9/4K4/9 w - - 0 23",
      "4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 99 60",
  };
  int accepted = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string fen = mutate(seeds[rng() % 4], rng);
    auto game = games::janggi::make_janggi_game("janggi", fen);
    INFO("FEN: " << fen);
    if (game) {
      ++accepted;
      check_consistent(**game);
    } else {
      CHECK(game.error().message.starts_with("invalid FEN: "));
      CHECK(valid_utf8(game.error().message));
    }
  }
  // Some mutations (a changed count, swapped pieces) still make legal positions.
  CHECK(accepted > 0);
}

TEST_CASE("janggi parse_move survives random and mutated moves", "[games][janggi]") {
  std::mt19937 rng(13);
  auto game = games::janggi::make_janggi_game("janggi", "");
  REQUIRE(game.has_value());
  const auto legal = (*game)->legal_moves();
  const auto human = (*game)->legal_moves_human();
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    if (i % 2) {
      text.resize(rng() % 12);
      for (char& c : text) c = char(rng() % 256);
    } else {
      text = mutate(i % 4 ? legal[rng() % legal.size()] : human[rng() % human.size()], rng);
    }
    const auto parsed = (*game)->parse_move(text);
    if (parsed) {
      CHECK(std::find(legal.begin(), legal.end(), *parsed) != legal.end());
    } else {
      CHECK_FALSE(parsed.error().message.empty());
      CHECK(valid_utf8(parsed.error().message));
    }
  }
}
