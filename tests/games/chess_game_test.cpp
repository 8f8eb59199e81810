// The chess games::Game as the arena sees it: the factory, apply/undo/clone, the prompt text
// and the board-view JSON.
#include "games/chess/chess_game.h"

#include <catch2/catch.hpp>
#include <string>

#include "games/game.h"

TEST_CASE("make_game(\"chess\") gives the start position and applies moves in either notation", "[games]") {
  auto made = games::make_game("chess");
  REQUIRE(made.has_value());
  auto& game = **made;
  CHECK(game.variant() == "chess");
  CHECK(game.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  CHECK(game.side_to_move() == games::Side::First);
  CHECK(game.legal_moves().size() == 20);
  REQUIRE(game.apply("e4").has_value());
  REQUIRE(game.apply("c7c5").has_value());
  CHECK(game.ply() == 2);
  CHECK(game.side_to_move() == games::Side::First);
  CHECK(!game.apply("Ke3").has_value());
  CHECK(game.ply() == 2);

  auto copy = game.clone();
  REQUIRE(copy->apply("Nf3").has_value());
  CHECK(game.ply() == 2);
  CHECK(copy->ply() == 3);
  REQUIRE(copy->undo());
  REQUIRE(copy->undo());
  REQUIRE(copy->undo());
  CHECK(!copy->undo());
  CHECK(copy->fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  CHECK(game.fen() == "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
}

TEST_CASE("a bad FEN reaches the caller of make_game as an error", "[games]") {
  const auto game = games::make_game("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1");
  REQUIRE(!game.has_value());
  CHECK(game.error().message == "FEN field 2 (side to move): expected 'w' or 'b', got 'x'");
}

TEST_CASE("render_text draws the board for a prompt", "[games]") {
  auto game = std::move(*games::chess::make_chess_game(""));
  REQUIRE(game->apply("e4").has_value());
  const std::string text = game->render_text();
  CHECK(text.find("  a b c d e f g h\n8 r n b q k b n r 8\n7 p p p p p p p p 7\n") == 0);
  CHECK(text.find("4 . . . . P . . . 4\n") != std::string::npos);
  CHECK(text.find("Black to move.") != std::string::npos);
  CHECK(text.find("Last move: e4.") != std::string::npos);
  CHECK(text.find("Castling rights: white O-O, white O-O-O, black O-O, black O-O-O.") != std::string::npos);

  auto check = std::move(*games::chess::make_chess_game("4r1k1/8/8/8/8/8/8/4K3 w - - 0 1"));
  CHECK(check->render_text().find("White to move (in check).") != std::string::npos);
  CHECK(check->render_text().find("Castling rights: none.") != std::string::npos);
}

TEST_CASE("to_json describes the board for the viewer", "[games]") {
  auto game = std::move(*games::chess::make_chess_game(""));
  for (const char* m : {"f3", "e5", "g4", "Qh4#"}) REQUIRE(game->apply(m).has_value());
  const std::string json = game->to_json();
  CHECK(json.find("\"variant\":\"chess\"") != std::string::npos);
  CHECK(json.find("\"fen\":\"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\"") !=
        std::string::npos);
  CHECK(json.find("\"squares\":[\"r\",\"n\",\"b\",\"\",\"k\"") != std::string::npos);
  CHECK(json.find("\"side_to_move\":\"white\"") != std::string::npos);
  CHECK(json.find("\"last_move\":\"d8h4\"") != std::string::npos);
  CHECK(json.find("\"last_move_san\":\"Qh4#\"") != std::string::npos);
  CHECK(json.find("\"in_check\":true") != std::string::npos);
  CHECK(json.find("\"outcome\":{\"result\":\"black_wins\",\"reason\":\"checkmate\"}") != std::string::npos);
  CHECK(json.find("\"legal_moves\":[]") != std::string::npos);

  auto start = std::move(*games::chess::make_chess_game(""));
  const std::string first = start->to_json();
  CHECK(first.find("\"last_move\":null") != std::string::npos);
  CHECK(first.find("\"outcome\":{\"result\":\"ongoing\",\"reason\":\"\"}") != std::string::npos);
  CHECK(first.find("\"claimable_draw\":null") != std::string::npos);
  CHECK(first.find("\"e2e4\"") != std::string::npos);
}
