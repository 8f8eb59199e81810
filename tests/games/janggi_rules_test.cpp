// Janggi piece rules and game endings on hand-made positions. Every expected move set below was
// worked out by hand from the rules and agrees with Fairy-Stockfish 11.1 (`go perft 1`).
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "games/janggi/janggi_game.h"

namespace {

using games::Game;
using Result = games::Outcome::Result;

std::unique_ptr<Game> game_from(std::string_view fen, std::string_view variant = "janggi") {
  auto game = games::janggi::make_janggi_game(variant, fen);
  INFO("FEN: " << fen << (game ? "" : " error: " + game.error().message));
  REQUIRE(game.has_value());
  return std::move(*game);
}

// Destinations of the legal moves starting on `from` (UCI square names).
std::set<std::string> targets(const Game& game, const std::string& from) {
  std::set<std::string> out;
  for (const std::string& m : game.legal_moves())
    if (m.starts_with(from) && !std::isdigit(static_cast<unsigned char>(m[from.size()])))
      out.insert(m.substr(from.size()));
  return out;
}

bool has_move(const Game& game, const std::string& move) {
  for (const std::string& m : game.legal_moves())
    if (m == move) return true;
  return false;
}

void play(Game& game, std::initializer_list<std::string_view> moves) {
  for (std::string_view m : moves) {
    INFO("move " << m);
    REQUIRE(game.apply(m).has_value());
  }
}

using Set = std::set<std::string>;

}  // namespace

TEST_CASE("janggi general and guard move along the palace lines only", "[games][janggi]") {
  // The centre joins all eight neighbours; a corner joins the centre diagonally.
  CHECK(targets(*game_from("3k5/9/9/9/9/9/9/9/4K4/9 w - - 0 1"), "e2") ==
        Set{"d1", "e1", "f1", "d2", "f2", "d3", "e3", "f3", "e2"});
  CHECK(targets(*game_from("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"), "d1") == Set{"e1", "d2", "e2", "d1"});
  // A guard in the corner d3: d2, e3 and the centre; never out of the palace (c3, d4).
  CHECK(targets(*game_from("3k5/9/9/9/9/9/9/3A5/9/4K4 w - - 0 1"), "d3") == Set{"d2", "e3", "e2"});
  // The general on e1 (not a diagonal point) has no diagonal step.
  CHECK(targets(*game_from("3k5/9/9/9/9/9/9/3A5/9/4K4 w - - 0 1"), "e1") == Set{"d1", "f1", "e2", "e1"});
}

TEST_CASE("janggi chariot slides along the palace diagonals", "[games][janggi]") {
  // From the corner d8 of Han's palace through e9 to f10.
  auto open = game_from("4k4/9/3R5/9/9/9/9/9/9/3K5 w - - 0 1");
  CHECK(targets(*open, "d8") == Set{"d2", "d3", "d4", "d5", "d6", "d7", "d9", "d10", "a8", "b8", "c8", "e8",
                                    "f8", "g8", "h8", "i8", "e9", "f10"});
  // A guard on e9 can be taken but stops the slide to f10.
  auto blocked = game_from("4k4/4a4/3R5/9/9/9/9/9/9/3K5 w - - 0 1");
  CHECK(targets(*blocked, "d8").count("e9") == 1);
  CHECK(targets(*blocked, "d8").count("f10") == 0);
  // From the centre of Cho's palace to all four corners.
  CHECK(targets(*game_from("3k5/9/9/9/9/9/9/9/4RK3/9 w - - 0 1"), "e2") ==
        Set{"d1", "e1", "f1", "a2", "b2", "c2", "d2", "d3", "e3", "f3", "e4", "e5", "e6", "e7", "e8", "e9",
            "e10"});
}

TEST_CASE("janggi cannon jumps exactly one screen that is not a cannon", "[games][janggi]") {
  // Screen b5: lands on b6, b7 or takes b8; nothing to jump below or beside.
  CHECK(targets(*game_from("4k4/9/1p7/9/9/1P7/9/1C7/9/3K5 w - - 0 1"), "b3") == Set{"b6", "b7", "b8"});
  // A cannon is never a screen.
  CHECK(targets(*game_from("4k4/9/1p7/9/9/1c7/9/1C7/9/3K5 w - - 0 1"), "b3").empty());
  // A cannon never takes a cannon.
  CHECK(targets(*game_from("4k4/9/1c7/9/9/1P7/9/1C7/9/3K5 w - - 0 1"), "b3") == Set{"b6", "b7"});
  // Two pieces in a row: the second stops the jump.
  CHECK(targets(*game_from("4k4/9/9/9/1P7/1P7/9/1C7/9/3K5 w - - 0 1"), "b3").empty());
  // Along a palace diagonal over the guard on e2 to f3, and along rank 1 over its own general.
  CHECK(targets(*game_from("4k4/9/9/9/9/9/9/9/4A4/3C1K3 w - - 0 1"), "d1") == Set{"f3", "g1", "h1", "i1"});
  CHECK(targets(*game_from("4k4/9/9/9/9/9/9/9/4C4/3C1K3 w - - 0 1"), "d1") == Set{"g1", "h1", "i1"});
}

TEST_CASE("janggi cannon gives check along a palace diagonal", "[games][janggi]") {
  // Cho's cannon on f10 checks Han's general on d8 over the guard on e9: no pass, and every
  // guard move lifts the screen.
  auto game = game_from("5C3/4a4/3k5/9/9/9/9/9/9/4K4 b - - 0 1");
  const auto moves = game->legal_moves();
  CHECK(std::set<std::string>(moves.begin(), moves.end()) ==
        Set{"d8e8", "d8d9", "e9e8", "e9f8", "e9d9", "e9f9", "e9d10", "e9e10", "e9f10"});
}

TEST_CASE("janggi soldier moves forward or sideways, diagonally forward in the palace", "[games][janggi]") {
  CHECK(targets(*game_from("4k4/9/9/9/9/4P4/9/9/9/3K5 w - - 0 1"), "e5") == Set{"e6", "d5", "f5"});
  CHECK(targets(*game_from("4k4/9/3P5/9/9/9/9/9/9/3K5 w - - 0 1"), "d8") == Set{"d9", "c8", "e8", "e9"});
  CHECK(targets(*game_from("9/4P4/4k4/9/9/9/9/9/9/3K5 w - - 0 1"), "e9") ==
        Set{"e10", "d9", "f9", "d10", "f10"});
  // Han's soldiers move down the board.
  CHECK(targets(*game_from("5k3/9/9/9/9/9/9/3K5/4p4/9 b - - 0 1"), "e2") ==
        Set{"e1", "d2", "f2", "d1", "f1"});
}

TEST_CASE("janggi elephant and horse are blocked on their paths", "[games][janggi]") {
  CHECK(targets(*game_from("4k4/9/9/9/9/4B4/9/9/9/3K5 w - - 0 1"), "e5") ==
        Set{"c2", "g2", "b3", "h3", "b7", "h7", "c8", "g8"});
  // Blocked at the orthogonal step e6 (both upward leaps) ...
  CHECK(targets(*game_from("4k4/9/9/9/4p4/4B4/9/9/9/3K5 w - - 0 1"), "e5") ==
        Set{"c2", "g2", "b3", "h3", "b7", "h7"});
  // ... and at the diagonal point f7 (the leap to g8 only).
  CHECK(targets(*game_from("4k4/9/9/5p3/9/4B4/9/9/9/3K5 w - - 0 1"), "e5") ==
        Set{"c2", "g2", "b3", "h3", "b7", "h7", "c8"});
  CHECK(targets(*game_from("4k4/9/9/9/9/4N4/9/9/9/3K5 w - - 0 1"), "e5") ==
        Set{"d3", "f3", "c4", "g4", "c6", "g6", "d7", "f7"});
  CHECK(targets(*game_from("4k4/9/9/9/4p4/4N4/9/9/9/3K5 w - - 0 1"), "e5") ==
        Set{"d3", "f3", "c4", "g4", "c6", "g6"});
  CHECK(targets(*game_from("4k4/9/9/9/9/4Np3/9/9/9/3K5 w - - 0 1"), "e5") ==
        Set{"d3", "f3", "c4", "c6", "d7", "f7"});
}

TEST_CASE("janggi pass: the general's square twice, never while in check", "[games][janggi]") {
  auto start = game_from("");
  CHECK(has_move(*start, "e2e2"));
  CHECK(start->parse_move("pass").value() == "e2e2");
  CHECK(start->parse_move("한수쉼").value() == "e2e2");
  // In check from the chariot on d5: the general must move, no pass.
  auto checked = game_from("4k4/9/9/9/9/3r5/9/9/9/3K5 w - - 0 1");
  CHECK(checked->legal_moves() == std::vector<std::string>{"d1e1", "d1e2"});
  const auto refused = checked->parse_move("d1d1");
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message.find("cannot pass while in check") != std::string::npos);
}

TEST_CASE("janggi two passes in a row end the game by counting", "[games][janggi]") {
  auto game = game_from("");
  play(*game, {"e2e2"});
  CHECK_FALSE(game->outcome().finished());
  play(*game, {"e9e9"});
  const auto o = game->outcome();
  // Equal armies: 72 points each, and Han's 1.5 decides.
  CHECK(o.result == Result::SecondWins);
  CHECK(o.reason == "both sides passed; counting: Cho 72, Han 73.5");
  CHECK(game->legal_moves().empty());
  CHECK(game->perft(1) == 0);
  CHECK_FALSE(game->apply("a1a2").has_value());
  // Without counting the double pass is a draw.
  auto casual = game_from("", "janggicasual");
  play(*casual, {"e2e2", "e9e9"});
  CHECK(casual->outcome().result == Result::Draw);
  // undo reopens the game.
  REQUIRE(game->undo());
  CHECK_FALSE(game->outcome().finished());
}

TEST_CASE("janggi counting gives Han 1.5 points", "[games][janggi]") {
  // Horse (5) against two soldiers (4 + 1.5): Han wins by half a point.
  auto han = game_from("4k4/9/9/9/p3p4/9/9/9/9/3KN4 w - - 0 1");
  play(*han, {"d1d1", "e10e10"});
  CHECK(han->outcome().result == Result::SecondWins);
  CHECK(han->outcome().reason == "both sides passed; counting: Cho 5, Han 5.5");
  // Cannon (7) against horse (5 + 1.5): Cho wins by half a point.
  auto cho = game_from("4k4/9/9/n8/9/9/9/9/9/3KC4 w - - 0 1");
  play(*cho, {"d1d1", "e10e10"});
  CHECK(cho->outcome().result == Result::FirstWins);
  CHECK(cho->outcome().reason == "both sides passed; counting: Cho 7, Han 6.5");
}

TEST_CASE("janggi bikjang: facing generals must be broken, and a pass ends the game", "[games][janggi]") {
  // The guard leaves e2 and the generals face each other on the e-file.
  const std::string fen = "4k4/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1";
  auto game = game_from(fen);
  play(*game, {"e2d2"});
  // e10e9 would keep the generals facing; the pass stays legal.
  auto moves = game->legal_moves();
  CHECK(std::set<std::string>(moves.begin(), moves.end()) == Set{"e10d10", "e10f10", "e10e10"});
  const auto facing = game->parse_move("e10e9");
  REQUIRE_FALSE(facing.has_value());
  CHECK(facing.error().message.find("bikjang") != std::string::npos);
  play(*game, {"e10e10"});
  CHECK(game->outcome().result == Result::FirstWins);
  CHECK(game->outcome().reason == "bikjang; counting: Cho 3, Han 1.5");
  // Traditional rules: bikjang is a draw.
  auto traditional = game_from(fen, "janggitraditional");
  play(*traditional, {"e2d2", "e10e10"});
  CHECK(traditional->outcome().result == Result::Draw);
  CHECK(traditional->outcome().reason == "bikjang");
  // Casual and modern rules ignore facing generals.
  for (const char* variant : {"janggicasual", "janggimodern"}) {
    auto casual = game_from(fen, variant);
    play(*casual, {"e2d2"});
    CHECK(has_move(*casual, "e10e9"));
    play(*casual, {"e10e10"});
    CHECK_FALSE(casual->outcome().finished());
  }
}

TEST_CASE("janggi bikjang allows a pass even in check", "[games][janggi]") {
  // Han's chariot checks along rank 1 while the generals face on the d-file.
  auto game = game_from("3k5/9/9/9/9/9/9/9/9/r2K5 w - - 0 1");
  auto moves = game->legal_moves();
  CHECK(std::set<std::string>(moves.begin(), moves.end()) == Set{"d1d1", "d1e2"});
  play(*game, {"d1d1"});
  CHECK(game->outcome().result == Result::SecondWins);  // Han 13 + 1.5 against nothing
}

TEST_CASE("janggi checkmate ends the game", "[games][janggi]") {
  auto game = game_from("R3k4/8R/9/9/9/9/9/9/9/3K5 b - - 0 1");
  CHECK(game->legal_moves().empty());
  CHECK(game->outcome().result == Result::FirstWins);
  CHECK(game->outcome().reason == "checkmate");
}

TEST_CASE("janggi 100 plies without a capture end the game by counting", "[games][janggi]") {
  const std::string fen = "4k4/9/9/9/9/p8/9/9/4A4/R2K5 w - - 99 60";
  auto game = game_from(fen);
  CHECK_FALSE(game->outcome().finished());
  play(*game, {"a1b1"});
  CHECK(game->outcome().result == Result::FirstWins);
  CHECK(game->outcome().reason == "100 plies without a capture; counting: Cho 16, Han 3.5");
  CHECK(game->legal_moves().empty());
  // A capture on the 100th ply resets the count.
  auto capture = game_from(fen);
  play(*capture, {"a1a5"});
  CHECK_FALSE(capture->outcome().finished());
  CHECK(capture->fen() == "4k4/9/9/9/9/R8/9/9/4A4/3K5 b - - 0 60");
  auto casual = game_from(fen, "janggicasual");
  play(*casual, {"a1b1"});
  CHECK(casual->outcome().result == Result::Draw);
}

TEST_CASE("janggi threefold repetition ends the game by counting", "[games][janggi]") {
  const std::string fen = "4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 0 60";
  auto game = game_from(fen);
  play(*game, {"a1b1", "e10e9", "b1a1", "e9e10", "a1b1", "e10e9", "b1a1"});
  CHECK_FALSE(game->outcome().finished());
  play(*game, {"e9e10"});
  CHECK(game->outcome().result == Result::FirstWins);
  CHECK(game->outcome().reason == "threefold repetition; counting: Cho 16, Han 1.5");
  auto casual = game_from(fen, "janggicasual");
  play(*casual, {"a1b1", "e10e9", "b1a1", "e9e10", "a1b1", "e10e9", "b1a1", "e9e10"});
  CHECK(casual->outcome().result == Result::Draw);
  CHECK(casual->outcome().reason == "threefold repetition");
}

TEST_CASE("janggi perpetual check loses for the checking side", "[games][janggi]") {
  for (const char* variant : {"janggi", "janggicasual"}) {
    auto game = game_from("3k5/9/9/9/9/9/7R1/9/5K3/8R w - - 0 1", variant);
    play(*game, {"h4d4", "d10e10", "d4e4", "e10d10", "e4d4", "d10e10", "d4e4", "e10d10"});
    CHECK_FALSE(game->outcome().finished());
    play(*game, {"e4d4"});
    CHECK(game->outcome().result == Result::SecondWins);
    CHECK(game->outcome().reason == "perpetual check");
  }
}

TEST_CASE("janggi rule sets are selected by name", "[games][janggi]") {
  for (const char* variant : {"janggi", "janggimodern", "janggicasual", "janggitraditional"}) {
    auto game = game_from("", variant);
    CHECK(game->variant() == variant);
    CHECK(game->perft(2) == 1024);
  }
  const auto unknown = games::janggi::make_janggi_game("janggifast", "");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message.find("unknown janggi rule set") != std::string::npos);
}
