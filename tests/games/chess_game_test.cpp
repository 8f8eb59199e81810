// The chess games::Game as the arena sees it: the factory, apply/undo/clone, the prompt text
// and the board view.
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

TEST_CASE("board_view describes the board for the viewer", "[games]") {
  auto game = std::move(*games::chess::make_chess_game(""));
  for (const char* m : {"f3", "e5", "g4", "Qh4#"}) REQUIRE(game->apply(m).has_value());
  const games::BoardView view = game->board_view();
  CHECK(view.variant == "chess");
  CHECK(view.fen == "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
  CHECK(view.files == 8);
  CHECK(view.ranks == 8);
  REQUIRE(view.squares.size() == 64);
  CHECK(view.squares[0].name == "a8");
  REQUIRE(view.squares[0].piece.has_value());
  CHECK(view.squares[0].piece->letter == 'r');
  CHECK(view.squares[0].piece->name == "rook");
  CHECK(view.squares[0].piece->side == games::Side::Second);
  CHECK_FALSE(view.squares[3].piece.has_value());  // d8: the queen left
  CHECK(view.squares[63].name == "h1");
  CHECK(view.squares[63].piece->letter == 'R');
  CHECK(view.squares[63].piece->side == games::Side::First);
  CHECK(view.side_names == std::array<std::string, 2>{"White", "Black"});
  CHECK(view.side_to_move == games::Side::First);
  CHECK(view.ply == 4);
  CHECK(view.last_move == "d8h4");
  CHECK(view.last_move_human == "Qh4#");
  CHECK(view.check_square == "e1");
  CHECK(game->check_square() == "e1");  // the attack query alone, as the hub asks it
  CHECK(view.outcome.result == games::Outcome::Result::SecondWins);
  CHECK(view.outcome.reason == "checkmate");
  CHECK(view.legal_moves.empty());
  CHECK_FALSE(view.points.has_value());

  auto start = std::move(*games::chess::make_chess_game(""));
  const games::BoardView first = start->board_view();
  CHECK_FALSE(first.last_move.has_value());
  CHECK_FALSE(first.check_square.has_value());
  CHECK_FALSE(start->check_square().has_value());
  CHECK(first.outcome.result == games::Outcome::Result::Ongoing);
  CHECK_FALSE(first.claimable_draw.has_value());
  REQUIRE(first.legal_moves.size() == 20);
  REQUIRE(first.legal_moves_human.size() == 20);
  for (size_t i = 0; i < first.legal_moves.size(); ++i)
    CHECK(start->to_human(first.legal_moves[i]).value() == first.legal_moves_human[i]);
}

TEST_CASE("chess names its sides and keeps the moves since the start position", "[games]") {
  const std::string fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
  auto game = std::move(*games::make_game("chess", fen));
  CHECK(game->side_name() == "White");
  CHECK(game->side_name(games::Side::Second) == "Black");
  CHECK(game->to_human("e1g1").value() == "O-O");
  CHECK(game->to_human("O-O-O").value() == "O-O-O");
  const auto bad = game->to_human("e1e3");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().kind == games::GameError::Kind::InvalidMove);
  for (const char* m : {"e1g1", "a8a1"}) REQUIRE(game->apply(m).has_value());
  CHECK(game->side_name() == "White");
  CHECK(game->start_fen() == fen);
  CHECK(game->moves() == std::vector<std::string>{"e1g1", "a8a1"});
  CHECK(game->moves_human() == std::vector<std::string>{"O-O", "Rxa1"});
  CHECK(game->board_view().claimable_draw == std::nullopt);
  auto copy = game->clone();
  REQUIRE(copy->undo());
  CHECK(copy->moves() == std::vector<std::string>{"e1g1"});
  CHECK(game->moves().size() == 2);
  // Replaying the history from the start position reaches the same position.
  auto replay = std::move(*games::make_game("chess", game->start_fen()));
  for (const auto& m : game->moves()) REQUIRE(replay->apply(m).has_value());
  CHECK(replay->fen() == game->fen());
}

TEST_CASE("game errors carry a kind", "[games]") {
  CHECK(games::make_game("shogi").error().kind == games::GameError::Kind::UnknownVariant);
  CHECK(games::make_game("chess", "8/8 w").error().kind == games::GameError::Kind::InvalidPosition);
  auto game = std::move(*games::make_game("chess"));
  CHECK(game->apply("e5").error().kind == games::GameError::Kind::InvalidMove);
  CHECK(games::to_string(games::GameError::Kind::InvalidMove) == "invalid move");
  CHECK(games::to_string(games::Outcome::Result::SecondWins) == "second_wins");
  CHECK(games::is_janggi("janggimodern"));
  CHECK_FALSE(games::is_janggi("chess"));
  CHECK_FALSE(games::is_janggi("janggix"));
}
