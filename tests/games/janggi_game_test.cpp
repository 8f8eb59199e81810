// Janggi behind games::Game: the text board for prompts, the board view, clone and undo.
#include "games/janggi/janggi_game.h"

#include <catch2/catch.hpp>
#include <string>

namespace {

std::unique_ptr<games::Game> game_from(std::string_view fen) {
  auto game = games::janggi::make_janggi_game("janggi", fen);
  REQUIRE(game.has_value());
  return std::move(*game);
}

}  // namespace

TEST_CASE("janggi render_text shows files, ranks, pieces and the side to move", "[games][janggi]") {
  auto game = game_from("");
  REQUIRE(game->apply("b1c3").has_value());
  const std::string text = game->render_text();
  CHECK(text.find("     a b c d e f g h i\n") != std::string::npos);
  CHECK(text.find(" 10  r n b a . a b n r  10\n") != std::string::npos);
  CHECK(text.find("  3  . C N . . . . C .  3\n") != std::string::npos);
  CHECK(text.find("  1  R . B A . A B N R  1\n") != std::string::npos);
  CHECK(text.find("Han to move") != std::string::npos);
  CHECK(text.find("Last move: b1c3 (02마83).") != std::string::npos);
  CHECK(text.find("Material points: Cho 72, Han 73.5") != std::string::npos);
  auto checked = game_from("4k4/9/9/9/9/3r5/9/9/9/3K5 w - - 0 1");
  CHECK(checked->render_text().find("Cho's general is in check.") != std::string::npos);
}

TEST_CASE("janggi board_view describes the board view", "[games][janggi]") {
  auto game = game_from("");
  REQUIRE(game->apply("e2e2").has_value());
  const games::BoardView view = game->board_view();
  CHECK(view.variant == "janggi");
  CHECK(view.fen == game->fen());
  CHECK(view.files == 9);
  CHECK(view.ranks == 10);
  // 90 points from a10 to i10, then rank 9, ... down to rank 1.
  REQUIRE(view.squares.size() == 90);
  CHECK(view.squares[0].name == "a10");
  CHECK(view.squares[0].piece->letter == 'r');
  CHECK(view.squares[0].piece->name == "chariot");
  CHECK(view.squares[9 + 4].piece->letter == 'k');  // e9
  CHECK(view.squares[9 + 4].piece->side == games::Side::Second);
  CHECK(view.squares[8 * 9 + 4].name == "e2");
  CHECK(view.squares[8 * 9 + 4].piece->name == "general");
  CHECK(view.squares[8 * 9 + 4].piece->side == games::Side::First);
  CHECK_FALSE(view.squares[9 * 9 + 4].piece.has_value());  // e1
  CHECK(view.squares[9 * 9 + 8].piece->letter == 'R');     // i1
  CHECK(view.side_names == std::array<std::string, 2>{"Cho", "Han"});
  CHECK(view.side_to_move == games::Side::Second);
  CHECK(view.last_move == "e2e2");
  CHECK(view.last_move_human == "한수쉼");
  CHECK_FALSE(view.check_square.has_value());
  CHECK(view.outcome.result == games::Outcome::Result::Ongoing);
  CHECK(view.legal_moves.size() == 32);
  CHECK(view.legal_moves_human.size() == 32);
  CHECK_FALSE(view.claimable_draw.has_value());
  REQUIRE(view.points.has_value());
  CHECK((*view.points)[1] == 73.5);
  REQUIRE(game->apply("e9e9").has_value());
  const games::BoardView over = game->board_view();
  CHECK(over.outcome.result == games::Outcome::Result::SecondWins);
  CHECK(over.outcome.reason == "both sides passed; counting: Cho 72, Han 73.5");
  CHECK(over.legal_moves.empty());
  const auto late = game->apply("e2e2");
  REQUIRE_FALSE(late.has_value());
  CHECK(late.error().kind == games::GameError::Kind::GameOver);

  auto checked = game_from("4k4/9/9/9/9/3r5/9/9/9/3K5 w - - 0 1");
  CHECK(checked->board_view().check_square == "d1");
  CHECK(checked->check_square() == "d1");
  CHECK_FALSE(game_from("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1")->check_square().has_value());
}

TEST_CASE("janggi names its sides, writes moves in numeric notation and keeps its history",
          "[games][janggi]") {
  auto game = game_from("");
  CHECK(game->side_name() == "Cho");
  CHECK(game->side_name(games::Side::Second) == "Han");
  CHECK(game->to_human("b1c3").value() == "02마83");
  CHECK(game->to_human("02마83").value() == "02마83");
  CHECK(game->to_human("e2e2").value() == "한수쉼");
  CHECK(game->to_human("b1b5").error().kind == games::GameError::Kind::InvalidMove);
  REQUIRE(game->apply("b1c3").has_value());
  REQUIRE(game->apply("e9e9").has_value());
  CHECK(game->side_name() == "Cho");
  CHECK(game->start_fen() == "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1");
  CHECK(game->moves() == std::vector<std::string>{"b1c3", "e9e9"});
  CHECK(game->moves_human() == std::vector<std::string>{"02마83", "한수쉼"});
  auto replay = games::make_game("janggi", game->start_fen());
  for (const auto& m : game->moves()) REQUIRE((*replay)->apply(m).has_value());
  CHECK((*replay)->fen() == game->fen());
}

TEST_CASE("janggi clone is independent and undo restores the position", "[games][janggi]") {
  auto game = game_from("");
  REQUIRE(game->apply("b1c3").has_value());
  auto copy = game->clone();
  REQUIRE(copy->apply("b10c8").has_value());
  CHECK(game->ply() == 1);
  CHECK(copy->ply() == 2);
  CHECK(copy->fen() != game->fen());
  REQUIRE(copy->undo());
  CHECK(copy->fen() == game->fen());
  REQUIRE(copy->undo());
  CHECK_FALSE(copy->undo());
  CHECK(copy->fen() == "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1");
  CHECK(game->claimable_draw().result == games::Outcome::Result::Ongoing);
}

TEST_CASE("janggi is reachable through games::make_game", "[games][janggi]") {
  const std::string fen = "4k4/9/9/9/9/9/9/9/4A4/R2K5 b - - 3 20";
  auto game = games::make_game("janggitraditional", fen);
  REQUIRE(game.has_value());
  CHECK((*game)->variant() == "janggitraditional");
  CHECK((*game)->fen() == fen);
  const auto bad = games::make_game("janggi", "not a fen");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.starts_with("invalid FEN: "));
}
