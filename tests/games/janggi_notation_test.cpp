// Janggi FEN, the 16 starting setups, and UCI / Korean numeric notation, including round trips
// over random games.
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>

#include "games/janggi/fen.h"
#include "games/janggi/janggi_game.h"

namespace {

using games::janggi::Setup;

std::unique_ptr<games::Game> game_from(std::string_view fen, std::string_view variant = "janggi") {
  auto game = games::janggi::make_janggi_game(variant, fen);
  INFO("FEN: " << fen << (game ? "" : " error: " + game.error().message));
  REQUIRE(game.has_value());
  return std::move(*game);
}

std::string error_of(std::string_view fen) {
  auto game = games::janggi::make_janggi_game("janggi", fen);
  return game ? std::string() : game.error().message;
}

}  // namespace

TEST_CASE("janggi start FEN is Fairy-Stockfish's", "[games][janggi]") {
  const std::string start = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";
  CHECK(games::janggi::start_fen() == start);
  auto game = game_from("");
  CHECK(game->fen() == start);
  CHECK(game->side_to_move() == games::Side::First);
  CHECK(game->ply() == 0);
}

TEST_CASE("janggi: all 16 horse/elephant setups parse, round-trip and match Fairy-Stockfish perft",
          "[games][janggi]") {
  struct Case {
    Setup cho, han;
    const char* back_ranks;  // Han's rank 10 and Cho's rank 1
    uint64_t perft4;         // Fairy-Stockfish 11.1, go perft 4
  };
  using S = Setup;
  const Case cases[] = {
      {S::HorseElephantElephantHorse, S::HorseElephantElephantHorse, "rnba1abnr RNBA1ABNR", 1065277},
      {S::HorseElephantElephantHorse, S::ElephantHorseHorseElephant, "rbna1anbr RNBA1ABNR", 1076353},
      {S::HorseElephantElephantHorse, S::HorseElephantHorseElephant, "rbna1abnr RNBA1ABNR", 1070815},
      {S::HorseElephantElephantHorse, S::ElephantHorseElephantHorse, "rnba1anbr RNBA1ABNR", 1070815},
      {S::ElephantHorseHorseElephant, S::HorseElephantElephantHorse, "rnba1abnr RBNA1ANBR", 1076739},
      {S::ElephantHorseHorseElephant, S::ElephantHorseHorseElephant, "rbna1anbr RBNA1ANBR", 1087883},
      {S::ElephantHorseHorseElephant, S::HorseElephantHorseElephant, "rbna1abnr RBNA1ANBR", 1082311},
      {S::ElephantHorseHorseElephant, S::ElephantHorseElephantHorse, "rnba1anbr RBNA1ANBR", 1082311},
      {S::HorseElephantHorseElephant, S::HorseElephantElephantHorse, "rnba1abnr RNBA1ANBR", 1071008},
      {S::HorseElephantHorseElephant, S::ElephantHorseHorseElephant, "rbna1anbr RNBA1ANBR", 1082118},
      {S::HorseElephantHorseElephant, S::HorseElephantHorseElephant, "rbna1abnr RNBA1ANBR", 1076567},
      {S::HorseElephantHorseElephant, S::ElephantHorseElephantHorse, "rnba1anbr RNBA1ANBR", 1076559},
      {S::ElephantHorseElephantHorse, S::HorseElephantElephantHorse, "rnba1abnr RBNA1ABNR", 1071008},
      {S::ElephantHorseElephantHorse, S::ElephantHorseHorseElephant, "rbna1anbr RBNA1ABNR", 1082118},
      {S::ElephantHorseElephantHorse, S::HorseElephantHorseElephant, "rbna1abnr RBNA1ABNR", 1076559},
      {S::ElephantHorseElephantHorse, S::ElephantHorseElephantHorse, "rnba1anbr RBNA1ABNR", 1076567},
  };
  std::set<std::string> fens;
  for (const Case& c : cases) {
    const std::string ranks = c.back_ranks;
    const std::string expected = ranks.substr(0, 9) + "/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/" +
                                 ranks.substr(10) + " w - - 0 1";
    const std::string fen = games::janggi::start_fen(c.cho, c.han);
    INFO("Cho " << games::janggi::setup_name(c.cho) << ", Han " << games::janggi::setup_name(c.han));
    CHECK(fen == expected);
    fens.insert(fen);
    auto game = game_from(fen);
    CHECK(game->fen() == fen);
    CHECK(game->perft(4) == c.perft4);
  }
  CHECK(fens.size() == 16);
}

TEST_CASE("janggi FEN accepts E and H and Fairy-Stockfish's optional fields", "[games][janggi]") {
  auto synonyms = game_from("rhea1aehr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RHEA1AEHR w - - 0 1");
  CHECK(synonyms->fen() == "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1");
  CHECK(game_from("4k4/9/9/9/9/9/9/9/4A4/R2K5 b")->fen() == "4k4/9/9/9/9/9/9/9/4A4/R2K5 b - - 0 1");
  CHECK(game_from("4k4/9/9/9/9/9/9/9/4A4/R2K5 b - - 7 31")->fen() == "4k4/9/9/9/9/9/9/9/4A4/R2K5 b - - 7 31");
}

TEST_CASE("janggi FEN errors name the field and the problem", "[games][janggi]") {
  CHECK(error_of("rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4 w") ==
        "invalid FEN: the board needs 10 ranks separated by '/', found 9");
  CHECK(error_of("rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABN w").find("rank 1") !=
        std::string::npos);
  CHECK(error_of("rnbq1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w").find("'q'") !=
        std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/9/9/4A4/R2K5 x").find("side to move") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/9/9/4A4/R2K5").find("side to move is missing") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/9/9/4A4/R2K5 w KQ - 0 1").find("castling") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - e3 0 1").find("en-passant") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - x 1").find("halfmove clock") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 0 -1").find("move number") != std::string::npos);
  CHECK(error_of("9/9/9/9/9/9/9/9/4A4/R2K5 w").find("Han has no general") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/4K4/9/9/9/9/9 w").find("inside its palace") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/4A4/9/9/R2K5 w").find("inside its palace") != std::string::npos);
  CHECK(error_of("4k4/9/9/9/9/9/9/RRR6/9/3K5 w").find("at most 2") != std::string::npos);
  // Cho to move while Han's general is attacked: cannot arise in play.
  CHECK(error_of("4k4/9/9/9/9/9/9/9/9/3KR4 w").find("already in check") != std::string::npos);
  CHECK(error_of("").empty());
  CHECK(error_of("   ").find("empty") != std::string::npos);
}

TEST_CASE("janggi numeric notation: rows from Han's side, 0 for the tenth, files from Cho's left",
          "[games][janggi]") {
  auto game = game_from("");
  // Fairy-Stockfish writes b1c3 as H02-83.
  CHECK(game->parse_move("02마83").value() == "b1c3");
  CHECK(game->parse_move("H02-83").value() == "b1c3");
  CHECK(game->parse_move("0283").value() == "b1c3");
  CHECK(game->parse_move(" b1c3 ").value() == "b1c3");
  CHECK(game->parse_move("B1C3").value() == "b1c3");
  const auto moves = game->legal_moves();
  const auto human = game->legal_moves_human();
  REQUIRE(moves.size() == human.size());
  for (size_t i = 0; i < moves.size(); ++i)
    if (moves[i] == "b1c3") CHECK(human[i] == "02마83");
  // A wrong piece name is caught.
  const auto wrong = game->parse_move("02차83");
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().message.find("is a horse (마), not a chariot (차)") != std::string::npos);
  // Han's moves use the same coordinates: b10c8 is 12마33.
  REQUIRE(game->apply("a4a5").has_value());
  CHECK(game->parse_move("12마33").value() == "b10c8");
  CHECK(game->parse_move("a10a9").value() == "a10a9");
}

TEST_CASE("janggi move errors say what is wrong", "[games][janggi]") {
  auto game = game_from("");
  auto message = [&](std::string_view text) {
    const auto result = game->parse_move(text);
    return result ? std::string() : result.error().message;
  };
  CHECK(message("hello").find("cannot read move 'hello'") != std::string::npos);
  CHECK(message("e5e6").find("no piece on e5") != std::string::npos);
  CHECK(message("a7a6").find("is Han's, but Cho is to move") != std::string::npos);
  CHECK(message("b1b5").find("the horse on b1 (02) cannot move to b5") != std::string::npos);
  CHECK(message("a1b1").find("your own piece stands there") != std::string::npos);
  CHECK(message("a1a1").find("general's own square twice (e2e2)") != std::string::npos);
  CHECK(message("").find("cannot read move") != std::string::npos);
  // A soldier stepping onto e3 would become the screen for Han's cannon on e8.
  auto pinned = game_from("3k5/9/4c4/9/9/9/9/3P5/4K4/9 w - - 0 1");
  const auto exposed = pinned->parse_move("d3e3");
  REQUIRE_FALSE(exposed.has_value());
  CHECK(exposed.error().message.find("leave Cho's general in check") != std::string::npos);
}

TEST_CASE("janggi FEN, UCI and numeric notation round-trip over random games", "[games][janggi]") {
  std::mt19937 rng(20240611);
  const Setup setups[] = {Setup::HorseElephantElephantHorse, Setup::ElephantHorseHorseElephant,
                          Setup::HorseElephantHorseElephant, Setup::ElephantHorseElephantHorse};
  for (int g = 0; g < 40; ++g) {
    auto game = game_from(games::janggi::start_fen(setups[rng() % 4], setups[rng() % 4]));
    for (int ply = 0; ply < 120 && !game->outcome().finished(); ++ply) {
      const auto moves = game->legal_moves();
      const auto human = game->legal_moves_human();
      REQUIRE(moves.size() == human.size());
      REQUIRE(!moves.empty());
      for (size_t i = 0; i < moves.size(); ++i) {
        INFO("FEN " << game->fen() << " move " << moves[i] << " / " << human[i]);
        CHECK(game->parse_move(moves[i]).value() == moves[i]);
        CHECK(game->parse_move(human[i]).value() == moves[i]);
      }
      // The FEN alone gives back the same position and moves.
      auto copy = game_from(game->fen());
      CHECK(copy->fen() == game->fen());
      CHECK(copy->legal_moves() == moves);
      const std::string fen_before = game->fen();
      const size_t choice = rng() % 8 == 0 ? moves.size() - 1 : rng() % moves.size();
      REQUIRE(game->apply(human[choice]).has_value());
      CHECK(game->ply() == ply + 1);
      if (rng() % 10 == 0) {
        REQUIRE(game->undo());
        CHECK(game->fen() == fen_before);
        REQUIRE(game->apply(moves[choice]).has_value());
      }
    }
  }
}
