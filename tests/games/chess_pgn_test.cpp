// PGN: writing (tags, SetUp/FEN, Termination, SAN movetext wrapped at 80 columns) and reading
// (move numbers, comments, variations, NAGs, results, several games, FEN headers, errors).
#include <catch2/catch.hpp>
#include <random>
#include <sstream>
#include <string>

#include "games/chess/chess_game.h"
#include "games/chess/pgn.h"

using games::chess::PgnGame;
using games::chess::read_pgn;
using games::chess::write_pgn;

TEST_CASE("PGN is written with the Seven Tag Roster, Termination and SAN movetext", "[games]") {
  PgnGame game;
  game.tags = {{"White", "llama \"the\" agent"}, {"Event", "arena test"}, {"Annotator", "none"}};
  game.moves = {"f2f3", "e7e5", "g2g4", "d8h4"};
  game.result = "0-1";
  const auto text = write_pgn(game);
  REQUIRE(text.has_value());
  CHECK(*text ==
        "[Event \"arena test\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n"
        "[White \"llama \\\"the\\\" agent\"]\n[Black \"?\"]\n[Result \"0-1\"]\n[Annotator \"none\"]\n"
        "[Termination \"normal\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n");

  game.tags.emplace_back("Termination", "time forfeit");
  CHECK(write_pgn(game)->find("[Termination \"time forfeit\"]") != std::string::npos);
  game.result = std::string("*");
  game.tags.pop_back();
  CHECK(write_pgn(game)->find("[Termination \"unterminated\"]") != std::string::npos);

  game.moves = {"e2e5"};
  CHECK(write_pgn(game).error().message.find("move 1 (e2e5): illegal move") == 0);
  game.moves.clear();
  game.result = "2-0";
  CHECK(!write_pgn(game).has_value());
}

TEST_CASE("PGN from a set-up position starts with the right move number", "[games]") {
  PgnGame game;
  game.start_fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 12";
  game.moves = {"e8d7", "e2e4"};
  game.result = "1/2-1/2";
  const auto text = write_pgn(game);
  REQUIRE(text.has_value());
  CHECK(text->find("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]\n") != std::string::npos);
  CHECK(text->find("\n12... Kd7 13. e4 1/2-1/2\n") != std::string::npos);
  const auto back = read_pgn(*text);
  REQUIRE(back.has_value());
  REQUIRE(back->size() == 1);
  CHECK((*back)[0].start_fen == game.start_fen);
  CHECK((*back)[0].moves == game.moves);
  CHECK((*back)[0].result == "1/2-1/2");
}

TEST_CASE("long games wrap at 80 columns and read back move for move", "[games]") {
  std::mt19937 rng(7);
  auto game = std::move(*games::chess::make_chess_game(""));
  PgnGame record;
  while (record.moves.size() < 300 && !game->outcome().finished()) {
    const auto moves = game->legal_moves();
    record.moves.push_back(moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(rng)]);
    REQUIRE(game->apply(record.moves.back()).has_value());
  }
  record.result = games::chess::pgn_result(game->outcome());
  const auto text = write_pgn(record);
  REQUIRE(text.has_value());
  std::istringstream lines(*text);
  int movetext_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    CHECK(line.size() <= 80);
    movetext_lines += !line.empty() && line[0] != '[';
  }
  CHECK(movetext_lines > 5);
  const auto back = read_pgn(*text);
  REQUIRE(back.has_value());
  REQUIRE(back->size() == 1);
  CHECK((*back)[0].moves == record.moves);
  CHECK((*back)[0].result == record.result);
}

TEST_CASE("PGN reading skips comments, variations, NAGs and annotations", "[games]") {
  const std::string text =
      "% an escaped line\n"
      "[Event \"Opening book\"]\n"
      "[White \"A \\\"quoted\\\" name\"]\n"
      "\n"
      "1.e4 {best by test} e5 $1 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6!? ; a comment\n"
      "3.Bb5 a6 4. Ba4 Nf6 5. 0-0 *\n"
      "\n"
      "[Event \"Second\"]\n"
      "[SetUp \"1\"]\n"
      "[FEN \"4k3/4P3/2K5/8/8/8/8/8 b - - 0 1\"]\n"
      "\n"
      "1... Kf7 2. e8=Q+ 1-0\n"
      "\n"
      "1. d4 d5 1/2-1/2\n";
  const auto games = read_pgn(text);
  REQUIRE(games.has_value());
  REQUIRE(games->size() == 3);
  const auto& first = (*games)[0];
  CHECK(first.tag("Event") == "Opening book");
  CHECK(first.tag("White") == "A \"quoted\" name");
  CHECK(first.moves ==
        std::vector<std::string>{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1"});
  CHECK(first.result == "*");
  const auto& second = (*games)[1];
  CHECK(second.start_fen == "4k3/4P3/2K5/8/8/8/8/8 b - - 0 1");
  CHECK(second.moves == std::vector<std::string>{"e8f7", "e7e8q"});
  CHECK(second.result == "1-0");
  CHECK((*games)[2].moves == std::vector<std::string>{"d2d4", "d7d5"});
  CHECK((*games)[2].tags.empty());
}

TEST_CASE("PGN reading reports bad input with its line", "[games]") {
  const auto illegal = read_pgn("[Event \"x\"]\n\n1. e4 e5\n2. Ke3 Nc6 *\n");
  REQUIRE(!illegal.has_value());
  CHECK(illegal.error().message ==
        "PGN line 4: game 1, move 2. Ke3: illegal move Ke3: no white king can move to e3");
  CHECK(read_pgn("1. e4 {never closed\n").error().message == "PGN line 1: comment '{' is never closed");
  CHECK(read_pgn("1. e4 (1. d4\n").error().message == "PGN line 1: variation '(' is never closed");
  CHECK(read_pgn("[Event x]\n").error().message ==
        "PGN line 1: malformed tag pair: expected [Name \"value\"]");
  CHECK(read_pgn("1. e4 )").error().message == "PGN line 1: unexpected ')'");
  CHECK(read_pgn("[FEN \"8/8/8 w - - 0 1\"]\n1. e4")
            .error()
            .message.find("PGN line 2: game 1: bad FEN tag: FEN") == 0);
  CHECK(read_pgn("")->empty());
}
