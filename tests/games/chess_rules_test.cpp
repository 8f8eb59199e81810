// Chess rules on hand-made positions: mate and stalemate, every draw (threefold and fifty-move
// claims, fivefold and seventy-five-move automatic endings, each kind of insufficient
// material), en passant with pins and checks, castling through and out of check, promotion to
// each piece, and the FEN reader's errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "games/chess/chess_game.h"

namespace {

using games::Game;
using games::Outcome;
using Result = games::Outcome::Result;

std::unique_ptr<Game> game_from(const std::string& fen) {
  auto game = games::chess::make_chess_game(fen);
  INFO(fen << ": " << (game ? "" : game.error().message));
  REQUIRE(game.has_value());
  return std::move(*game);
}

void play(Game& game, const std::vector<std::string>& moves) {
  for (const auto& m : moves) {
    const auto done = game.apply(m);
    INFO(m << ": " << (done ? "" : done.error().message));
    REQUIRE(done.has_value());
  }
}

bool has_move(const Game& game, const std::string& uci) {
  const auto moves = game.legal_moves();
  return std::find(moves.begin(), moves.end(), uci) != moves.end();
}

std::string fen_error(const std::string& fen) {
  const auto game = games::chess::make_chess_game(fen);
  INFO(fen);
  REQUIRE(!game.has_value());
  return game.error().message;
}

}  // namespace

TEST_CASE("checkmate ends the game for the side that gave it", "[games]") {
  auto game = game_from("");
  play(*game, {"f3", "e5", "g4"});
  CHECK(!game->outcome().finished());
  play(*game, {"Qh4#"});
  CHECK(game->outcome().result == Result::SecondWins);
  CHECK(game->outcome().reason == "checkmate");
  CHECK(game->legal_moves().empty());
  CHECK(!game->claimable_draw().finished());

  auto back_rank = game_from("6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1");
  play(*back_rank, {"Ra8"});
  CHECK(back_rank->outcome().result == Result::FirstWins);
}

TEST_CASE("stalemate is a draw", "[games]") {
  auto game = game_from("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
  CHECK(game->outcome().result == Result::Draw);
  CHECK(game->outcome().reason == "stalemate");
  auto before = game_from("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1");
  CHECK(!before->outcome().finished());
  play(*before, {"Qf7"});
  CHECK(before->outcome().reason == "stalemate");
}

TEST_CASE("threefold repetition can be claimed and fivefold ends the game", "[games]") {
  auto game = game_from("");
  const std::vector<std::string> cycle{"Nf3", "Nf6", "Ng1", "Ng8"};
  play(*game, cycle);  // the start position for the second time
  CHECK(!game->claimable_draw().finished());
  play(*game, {"Nf3", "Nf6", "Ng1"});
  CHECK(!game->claimable_draw().finished());
  play(*game, {"Ng8"});  // third time
  CHECK(game->claimable_draw().result == Result::Draw);
  CHECK(game->claimable_draw().reason == "threefold repetition");
  CHECK(!game->outcome().finished());
  play(*game, cycle);  // fourth
  CHECK(!game->outcome().finished());
  play(*game, {"Nf3", "Nf6", "Ng1"});
  CHECK(!game->outcome().finished());
  play(*game, {"Ng8"});  // fifth
  CHECK(game->outcome().result == Result::Draw);
  CHECK(game->outcome().reason == "fivefold repetition");
  CHECK(!game->claimable_draw().finished());  // nothing to claim once the game is over
  REQUIRE(game->undo());
  CHECK(!game->outcome().finished());
  CHECK(game->claimable_draw().reason == "threefold repetition");  // after Ng1: Nf3/Ng1 position x4
}

TEST_CASE("repetition needs the same castling rights and a usable en-passant square", "[games]") {
  // The kings' first trip loses the castling rights: the later positions differ from the first.
  auto game = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  play(*game, {"Ke2", "Ke7", "Ke1", "Ke8", "Ke2", "Ke7", "Ke1", "Ke8"});
  CHECK(!game->claimable_draw().finished());
  play(*game, {"Ke2", "Ke7", "Ke1", "Ke8"});
  CHECK(game->claimable_draw().reason == "threefold repetition");
}

TEST_CASE("the fifty-move rule can be claimed and seventy-five moves end the game", "[games]") {
  auto fifty = game_from("4k3/8/8/8/8/8/R7/4K3 w - - 99 80");
  CHECK(!fifty->claimable_draw().finished());
  play(*fifty, {"Ra3"});
  CHECK(fifty->claimable_draw().reason == "fifty-move rule");
  CHECK(!fifty->outcome().finished());

  auto reset = game_from("4k3/8/8/8/8/8/P7/4K3 w - - 99 80");
  play(*reset, {"a3"});  // a pawn move resets the count
  CHECK(!reset->claimable_draw().finished());

  auto seventy_five = game_from("4k3/8/8/8/8/8/R7/4K3 w - - 149 100");
  CHECK(!seventy_five->outcome().finished());
  play(*seventy_five, {"Ra3"});
  CHECK(seventy_five->outcome().result == Result::Draw);
  CHECK(seventy_five->outcome().reason == "seventy-five-move rule");

  // Checkmate on the seventy-fifth move takes precedence.
  auto mate = game_from("6k1/5ppp/8/8/8/8/8/R3K3 w - - 149 100");
  play(*mate, {"Ra8#"});
  CHECK(mate->outcome().reason == "checkmate");
}

TEST_CASE("insufficient material is recognised case by case", "[games]") {
  const auto reason = [](const std::string& fen) { return game_from(fen)->outcome().reason; };
  CHECK(reason("4k3/8/8/8/8/8/8/4K3 w - - 0 1") == "insufficient material");      // K v K
  CHECK(reason("4k3/8/8/8/8/8/8/4KN2 w - - 0 1") == "insufficient material");     // K+N v K
  CHECK(reason("4k3/8/8/8/8/8/8/4KB2 w - - 0 1") == "insufficient material");     // K+B v K
  CHECK(reason("4kb2/8/8/8/8/8/8/4K3 w - - 0 1") == "insufficient material");     // K v K+B
  CHECK(reason("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1") == "insufficient material");   // same-coloured bishops
  CHECK(reason("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1") == "");                        // bishop pair
  CHECK(reason("3bk3/8/8/8/8/8/8/4KB2 w - - 0 1") == "");                         // opposite colours
  CHECK(reason("2b1k3/8/8/8/8/8/8/3BKB2 w - - 0 1") == "insufficient material");  // three, all light
  CHECK(reason("B6k/1B6/2B5/8/8/8/8/4K3 w - - 0 1") == "insufficient material");  // three light bishops
  CHECK(reason("4kn2/8/8/8/8/8/8/4KN2 w - - 0 1") == "");                         // K+N v K+N
  CHECK(reason("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1") == "");                         // K+N+N v K
  CHECK(reason("4kn2/8/8/8/8/8/8/4KB2 w - - 0 1") == "");                         // K+B v K+N
  CHECK(reason("4k3/8/8/8/8/8/P7/4K3 w - - 0 1") == "");                          // a pawn
  CHECK(reason("4k3/8/8/8/8/8/8/R3K3 w - - 0 1") == "");                          // a rook
  // A capture that leaves bare kings ends the game at once.
  auto game = game_from("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
  play(*game, {"Kxd2"});
  CHECK(game->outcome().reason == "insufficient material");
}

TEST_CASE("en passant respects pins and checks", "[games]") {
  // Capturing would open the fifth rank between the rook and the king: not legal, not in the FEN.
  auto horizontal = game_from("8/8/8/KPp4r/8/8/8/7k w - c6 0 1");
  CHECK(!has_move(*horizontal, "b5c6"));
  CHECK(horizontal->fen() == "8/8/8/KPp4r/8/8/8/7k w - - 0 1");
  // The capturing pawn is pinned on a diagonal it does not move along.
  auto diagonal = game_from("7k/8/8/3pP3/8/8/B7/K7 w - d6 0 1");
  CHECK(has_move(*diagonal, "e5d6"));
  auto diagonal_pin = game_from("k6b/8/8/3pP3/8/2K5/8/8 w - d6 0 1");
  CHECK(!has_move(*diagonal_pin, "e5d6"));
  // Capturing en passant removes the pawn that gives check.
  auto check = game_from("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
  CHECK(check->fen() == "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
  CHECK(has_move(*check, "e4d3"));
  play(*check, {"exd3"});
  CHECK(check->fen() == "8/8/8/2k5/8/3p4/8/4K3 w - - 0 2");
  // After a double push the FEN carries the square only when a capture is possible.
  auto pushes = game_from("");
  play(*pushes, {"e4"});
  CHECK(pushes->fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
  play(*pushes, {"d5", "e5", "f5"});
  CHECK(pushes->fen() == "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
  CHECK(has_move(*pushes, "e5f6"));
  CHECK(!has_move(*pushes, "e5d6"));  // that chance has passed
}

TEST_CASE("castling needs rights, empty squares and a safe path", "[games]") {
  auto through = game_from("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
  CHECK(!has_move(*through, "e1g1"));  // f1 is attacked
  CHECK(has_move(*through, "e1c1"));
  auto rook_path = game_from("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
  CHECK(has_move(*rook_path, "e1c1"));  // only the rook crosses the attacked b1
  auto lands = game_from("2r1k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
  CHECK(!has_move(*lands, "e1c1"));  // c1 is attacked
  auto in_check = game_from("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
  CHECK(!has_move(*in_check, "e1g1"));
  CHECK(!has_move(*in_check, "e1c1"));
  auto blocked = game_from("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
  CHECK(!has_move(*blocked, "e1g1"));
  CHECK(!has_move(*blocked, "e1c1"));

  auto game = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  play(*game, {"O-O"});
  CHECK(game->fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
  play(*game, {"Rh7"});  // the rook leaves: black keeps only queen-side castling
  CHECK(game->fen() == "r3k3/7r/8/8/8/8/8/R4RK1 w q - 2 2");
  play(*game, {"Rxa8+"});  // capturing the a8 rook removes the last right
  CHECK(game->fen() == "R3k3/7r/8/8/8/8/8/5RK1 b - - 0 2");
  REQUIRE(game->undo());
  REQUIRE(game->undo());
  REQUIRE(game->undo());
  CHECK(game->fen() == "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
}

TEST_CASE("a pawn promotes to each piece", "[games]") {
  for (const auto& [move, fen] :
       std::vector<std::pair<std::string, std::string>>{{"e7e8q", "4Q3/8/8/8/8/8/k7/4K3 b - - 0 1"},
                                                        {"e7e8r", "4R3/8/8/8/8/8/k7/4K3 b - - 0 1"},
                                                        {"e7e8b", "4B3/8/8/8/8/8/k7/4K3 b - - 0 1"},
                                                        {"e7e8n", "4N3/8/8/8/8/8/k7/4K3 b - - 0 1"}}) {
    auto game = game_from("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    play(*game, {move});
    CHECK(game->fen() == fen);
    REQUIRE(game->undo());
    CHECK(game->fen() == "8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
  }
  auto game = game_from("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
  CHECK(game->legal_moves().size() == 4 + 5);
}

TEST_CASE("FEN errors name the field and the problem", "[games]") {
  const std::string good = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
  CHECK(fen_error("   ") == "FEN is empty");
  CHECK(fen_error(good + " w").find("FEN has 2 fields") == 0);
  CHECK(fen_error(good + " x KQkq - 0 1") == "FEN field 2 (side to move): expected 'w' or 'b', got 'x'");
  CHECK(fen_error("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") ==
        "FEN field 1 (piece placement): expected 8 ranks separated by '/', got 7 in "
        "'rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR'");
  CHECK(fen_error("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .find("FEN field 1 (piece placement): "
                  "unexpected character '9'") == 0);
  CHECK(fen_error("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") ==
        "FEN field 1 (piece placement): rank 7 ('ppppppp') describes 7 squares, expected 8");
  CHECK(fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w kq - 0 1") ==
        "FEN field 1 (piece placement): white has 0 kings, expected exactly 1");
  CHECK(fen_error("4k3/8/8/8/8/8/8/P3K3 w - - 0 1").find("a white pawn stands on a1") != std::string::npos);
  CHECK(fen_error("QQQQQQQQ/QQ2k3/8/8/8/8/8/4K3 w - - 0 1").find("white has 0 pawns and 9 promoted pieces") !=
        std::string::npos);
  CHECK(fen_error(good + " w KQkX - 0 1") ==
        "FEN field 3 (castling): unexpected character 'X' (expected '-' or letters from KQkq)");
  CHECK(fen_error("4k3/8/8/8/8/8/8/4K3 w K - 0 1") ==
        "FEN field 3 (castling): 'K' needs a white rook on the king's (h-file) side of the king on rank 1");
  CHECK(fen_error("4k3/8/8/8/8/8/4K3/7R w K - 0 1") ==
        "FEN field 3 (castling): 'K' needs the white king on rank 1, but it is on e2");
  CHECK(fen_error(good + " w KK - 0 1") == "FEN field 3 (castling): 'K' appears twice in 'KK'");
  CHECK(fen_error(good + " w KQkq e4 0 1") ==
        "FEN field 4 (en passant): e4 is impossible with white to move (expected a square on rank 6)");
  CHECK(fen_error(good + " w KQkq z9 0 1") ==
        "FEN field 4 (en passant): expected '-' or a square such as e3, got 'z9'");
  CHECK(fen_error(good + " w KQkq - x 1") ==
        "FEN field 5 (halfmove clock): expected a whole number from 0 to 999999, got 'x'");
  CHECK(fen_error(good + " w KQkq - 0 -3") ==
        "FEN field 6 (fullmove number): expected a whole number from 1 to 99999999, got '-3'");
  CHECK(fen_error(good + " w KQkq - 0 1 extra").find("FEN has 7 fields") == 0);
  CHECK(fen_error("4k3/8/8/8/8/8/8/4K2r b - - 0 1") ==
        "FEN describes an impossible position: white is in check but it is black to move");

  // Accepted variations: EPD (no counters), fullmove 0, extra spaces, an unusable ep square dropped.
  CHECK(game_from(good + " w KQkq -")->fen() == good + " w KQkq - 0 1");
  CHECK(game_from(good + " w KQkq - 0 0")->fen() == good + " w KQkq - 0 1");
  CHECK(game_from("  " + good + "   b  KQkq  e3  0  1 ")->fen() == good + " b KQkq - 0 1");
}
