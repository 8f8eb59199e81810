// Janggi behind games::Game: the text board for prompts, the JSON board view, clone and undo.
#include "games/janggi/janggi_game.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
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

TEST_CASE("janggi to_json describes the board view", "[games][janggi]") {
  auto game = game_from("");
  REQUIRE(game->apply("e2e2").has_value());
  const auto json = nlohmann::json::parse(game->to_json());
  CHECK(json["variant"] == "janggi");
  CHECK(json["fen"] == game->fen());
  // 90 points from a10 to i10, then rank 9, ... down to rank 1.
  REQUIRE(json["squares"].size() == 90);
  CHECK(json["squares"][0] == "r");          // a10
  CHECK(json["squares"][9 + 4] == "k");      // e9
  CHECK(json["squares"][8 * 9 + 4] == "K");  // e2
  CHECK(json["squares"][9 * 9 + 4] == "");   // e1
  CHECK(json["squares"][9 * 9 + 8] == "R");  // i1
  CHECK(json["side_to_move"] == "han");
  CHECK(json["last_move"] == "e2e2");
  CHECK(json["last_move_numeric"] == "한수쉼");
  CHECK(json["in_check"] == false);
  CHECK(json["outcome"]["result"] == "ongoing");
  CHECK(json["legal_moves"].size() == 32);
  CHECK(json["legal_moves_numeric"].size() == 32);
  CHECK(json["claimable_draw"].is_null());
  CHECK(json["points"]["han"] == 73.5);
  REQUIRE(game->apply("e9e9").has_value());
  const auto over = nlohmann::json::parse(game->to_json());
  CHECK(over["outcome"]["result"] == "han_wins");
  CHECK(over["outcome"]["reason"] == "both sides passed; counting: Cho 72, Han 73.5");
  CHECK(over["legal_moves"].empty());
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
