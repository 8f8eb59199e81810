// End-to-end tournaments through run_tournament: the random and search agents playing chess and
// janggi. Checked: every chess game passes pgn-extract, every janggi game read back from
// games.pgn replays with legal, unambiguous SAN, the event log's shape and the standings'
// arithmetic. (Failures, deadline policies, clocks and the SPRT: tournament_policies_test.cpp.)
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "agents/agent_config.h"
#include "arena/tournament/runner.h"
#include "games/game.h"
#include "tests/arena/scripted_agent.h"
#include "tests/arena/tournament_test_files.h"

namespace fs = std::filesystem;
using namespace arena;
using namespace arena::tournament;

using arena::test::fresh_dir;
using arena::test::pgn_extract_errors;
using arena::test::player;
using arena::test::quick_config;
using arena::test::quiet_options;
using arena::test::read_events;
using arena::test::read_text;
using arena::test::Script;
using arena::test::scripted;

namespace {

Participant random_player(const std::string& name, uint64_t seed) {
  return player({name, {}, agents::RandomAgentConfig{seed}});
}

Participant search_player(const std::string& name, int depth) {
  agents::SearchAgentConfig c;
  c.depth = depth;
  return player({name, {}, c});
}

// The games of a PGN file, as text blocks.
std::vector<std::string> split_pgn(const std::string& text) {
  std::vector<std::string> games;
  size_t at = 0;
  while ((at = text.find("[Event ", at)) != std::string::npos) {
    const size_t next = text.find("\n[Event ", at + 1);
    games.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
    at = next == std::string::npos ? text.size() : next + 1;
  }
  return games;
}

std::string tag_of(const std::string& game, const std::string& tag) {
  std::smatch m;
  if (std::regex_search(game, m, std::regex("\\[" + tag + " \"([^\"]*)\"\\]"))) return m[1];
  return "";
}

// The SAN tokens of a game's movetext (comments, move numbers and the result removed).
std::vector<std::string> san_tokens(const std::string& game) {
  std::string body = game.substr(game.find("\n\n") + 2);
  body = std::regex_replace(body, std::regex("\\{[^}]*\\}"), " ");
  std::vector<std::string> out;
  std::istringstream in(body);
  for (std::string t; in >> t;) {
    if (std::regex_match(t, std::regex("[0-9]+\\.(\\.\\.)?"))) continue;
    if (t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*") continue;
    out.push_back(t);
  }
  return out;
}

// Replays one janggi game of games.pgn: each SAN token must name exactly one legal move (read
// here independently of the writer: piece letter, optional origin, 'x', target square).
void check_janggi_game(const std::string& game) {
  INFO(game);
  REQUIRE(tag_of(game, "Variant") == "Janggi");
  // The rule set rides in VariantRules (arena's / Fairy-Stockfish's variant name).
  const std::string rules = tag_of(game, "VariantRules");
  REQUIRE(games::is_janggi(rules));
  auto g = games::make_game(rules, tag_of(game, "FEN"));
  REQUIRE(g.has_value());
  const auto tokens = san_tokens(game);
  REQUIRE(std::to_string(tokens.size()) == tag_of(game, "PlyCount"));
  for (const auto& token : tokens) {
    std::smatch m;
    REQUIRE(
        std::regex_match(token, m, std::regex("([KAEHRCP])([a-i]?)(10|[1-9])?(x?)([a-i])(10|[1-9])([+#]?)")));
    const std::string letter = m[1], from_file = m[2], from_rank = m[3],
                      to = std::string(m[5]) + std::string(m[6]);
    // The board from the FEN: which piece stands on a square.
    const std::string fen = (*g)->fen();
    std::map<std::string, char> board;
    int rank = 10, file = 0;
    for (char c : fen.substr(0, fen.find(' '))) {
      if (c == '/') {
        --rank;
        file = 0;
      } else if (c >= '1' && c <= '9') {
        file += c - '0';
      } else {
        board[std::string(1, char('a' + file)) + std::to_string(rank)] = c;
        ++file;
      }
    }
    const std::map<char, char> fen_letter = {{'K', 'K'}, {'A', 'A'}, {'E', 'B'}, {'H', 'N'},
                                             {'R', 'R'}, {'C', 'C'}, {'P', 'P'}};
    std::vector<std::string> matches;
    for (const auto& mv : (*g)->legal_moves()) {
      const size_t split = std::isdigit(static_cast<unsigned char>(mv[2])) ? 3 : 2;
      const std::string from = mv.substr(0, split), dest = mv.substr(split);
      if (dest != to || !board.count(from)) continue;
      if (std::toupper(static_cast<unsigned char>(board[from])) != fen_letter.at(letter[0])) continue;
      if (!from_file.empty() && from.substr(0, 1) != from_file) continue;
      if (!from_rank.empty() && from.substr(1) != from_rank) continue;
      matches.push_back(mv);
    }
    INFO("token " << token);
    REQUIRE(matches.size() == 1);
    REQUIRE((*g)->apply(matches[0]).has_value());
  }
}

}  // namespace

TEST_CASE("chess and janggi round robin end to end", "[arena]") {
  const fs::path dir = fresh_dir("tourney", "e2e");
  auto config = quick_config({"chess", "janggi"}, 2);
  config.openings.janggi_setups = true;
  std::vector<Participant> players = {random_player("random", 3), search_player("search", 1),
                                      scripted("first-move", Script{})};
  auto summary = run_tournament(config, players, {}, quiet_options(dir));
  REQUIRE(summary.has_value());
  CHECK(summary->games_total == 12);  // 3 pairings x 2 games x 2 variants
  CHECK(summary->games_done == 12);
  CHECK_FALSE(summary->interrupted);

  // games.pgn: every chess game through pgn-extract, every janggi game replayed.
  const auto pgn_games = split_pgn(read_text(dir / "games.pgn"));
  REQUIRE(pgn_games.size() == 12);
  std::string chess_pgn;
  int janggi = 0;
  for (const auto& game : pgn_games) {
    CHECK(!tag_of(game, "Termination").empty());
    CHECK(tag_of(game, "TimeControl") == "-");
    if (tag_of(game, "Variant") == "Standard")
      chess_pgn += game;
    else {
      check_janggi_game(game);
      ++janggi;
    }
  }
  CHECK(janggi == 6);
  CHECK(pgn_extract_errors(chess_pgn, dir) == "");

  // events.jsonl: seq runs 1..N, one start and one end per game, moves match the ply counts.
  const auto events = read_events(dir);
  REQUIRE(!events.empty());
  CHECK(events.front()["type"] == "tournament_start");
  CHECK(events.back()["type"] == "tournament_end");
  std::map<std::string, int> moves, plies, starts;
  for (size_t i = 0; i < events.size(); ++i) {
    CHECK(events[i]["seq"] == int64_t(i + 1));
    const std::string type = events[i]["type"];
    if (type == "game_start") ++starts[events[i]["game"]];
    if (type == "move") {
      ++moves[events[i]["game"]];
      CHECK(events[i]["ply"] == moves[events[i]["game"]]);
      CHECK(events[i]["substitute"].is_null());
    }
    if (type == "game_end") plies[events[i]["game"]] = events[i]["plies"];
  }
  CHECK(starts.size() == 12);
  CHECK(plies.size() == 12);
  for (const auto& [game, n] : plies) CHECK(moves[game] == n);

  // standings.json: the arithmetic.
  const auto standings = nlohmann::json::parse(read_text(dir / "standings.json"));
  CHECK(standings["games_done"] == 12);
  int wins = 0, losses = 0, draws = 0, games = 0;
  for (const auto& row : standings["rows"]) {
    CHECK(row["games"] == 8);  // each agent plays 2 opponents x 2 games x 2 variants
    CHECK(row["wins"].get<int>() + row["draws"].get<int>() + row["losses"].get<int>() == 8);
    CHECK(row["points"].get<double>() == Approx(row["wins"].get<int>() + 0.5 * row["draws"].get<int>()));
    int pairs = 0;
    for (const auto& n : row["pentanomial"]) pairs += n.get<int>();
    CHECK(pairs == 4);
    wins += row["wins"].get<int>();
    losses += row["losses"].get<int>();
    draws += row["draws"].get<int>();
    games += row["games"].get<int>();
  }
  CHECK(wins == losses);
  CHECK(games == 24);
  CHECK(draws % 2 == 0);
  CHECK(fs::exists(dir / "standings.md"));
  CHECK(fs::exists(dir / "metrics.csv"));
  fs::remove_all(dir);
}
