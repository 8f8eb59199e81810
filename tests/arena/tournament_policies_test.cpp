// End-to-end tournaments through run_tournament with small scripted agents: agent failures and
// resignations as results, deadline policies, clocks, that a slow game does not hold up a fast
// one, and the SPRT stopping a decided match while observers see every logged event.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arena/tournament/runner.h"
#include "tests/arena/scripted_agent.h"
#include "tests/arena/tournament_test_files.h"

namespace fs = std::filesystem;
using namespace arena;
using namespace arena::tournament;

using arena::test::fresh_dir;
using arena::test::pgn_extract_errors;
using arena::test::quick_config;
using arena::test::quiet_options;
using arena::test::read_events;
using arena::test::read_text;
using arena::test::RecordingObserver;
using arena::test::Script;
using arena::test::scripted;

TEST_CASE("agent failures and resignations end games with the right result", "[arena]") {
  const fs::path dir = fresh_dir("tourney", "failures");
  auto config = quick_config({"chess"}, 2);
  Script illegal{Script::Mode::Illegal, 4, {}};
  Script resign{Script::Mode::Resign, 6, {}};
  Script crash{Script::Mode::Crash, 2, {}};
  config.concurrency = 2;
  auto summary = run_tournament(config, {scripted("cheat", illegal), scripted("quitter", resign)}, {},
                                quiet_options(dir));
  REQUIRE(summary.has_value());
  std::vector<nlohmann::json> ends;
  for (const auto& e : read_events(dir))
    if (e["type"] == "game_end") ends.push_back(e);
  REQUIRE(ends.size() == 2);
  for (const auto& e : ends) {
    // "cheat" fails at ply 4 (before "quitter" resigns at 6) whatever the colours.
    CHECK(e["termination"] == "illegal move");
    CHECK(e["failure_agent"] == "cheat");
    CHECK(e["reason"].get<std::string>().find("illegal move by cheat") == 0);
  }
  const auto standings = nlohmann::json::parse(read_text(dir / "standings.json"));
  for (const auto& row : standings["rows"]) {
    if (row["agent"] == "cheat") {
      CHECK(row["losses"] == 2);
      CHECK(row["illegal_answers"] == 2);
    } else {
      CHECK(row["wins"] == 2);
    }
  }
  fs::remove_all(dir);

  const fs::path dir2 = fresh_dir("tourney", "crash");
  summary = run_tournament(config, {scripted("crasher", crash), scripted("quitter", resign)}, {},
                           quiet_options(dir2));
  REQUIRE(summary.has_value());
  for (const auto& e : read_events(dir2))
    if (e["type"] == "game_end") {
      CHECK(e["termination"] == "abandoned");
      CHECK(e["failure_kind"] == "crashed");
    }
  fs::remove_all(dir2);

  const fs::path dir3 = fresh_dir("tourney", "resign");
  summary = run_tournament(config, {scripted("steady", Script{}), scripted("quitter", resign)}, {},
                           quiet_options(dir3));
  REQUIRE(summary.has_value());
  for (const auto& e : read_events(dir3))
    if (e["type"] == "game_end") {
      CHECK(e["reason"] == "quitter resigns");
      CHECK(e["result"] == (e["plies"].get<int>() % 2 == 0 ? "0-1" : "1-0"));
    }
  fs::remove_all(dir3);
}

TEST_CASE("deadline policies: random_move substitutes, loss_on_time ends the game", "[arena]") {
  auto config = quick_config({"chess"}, 2);
  config.move_deadline = std::chrono::milliseconds(30);
  config.tick = std::chrono::milliseconds(5);
  config.adjudication.max_plies = 12;
  Script silent{Script::Mode::Silent, 3, {}};
  SECTION("random_move") {
    const fs::path dir = fresh_dir("tourney", "random_move");
    config.deadline_policy = config::DeadlinePolicy::RandomMove;
    auto summary = run_tournament(config, {scripted("mute", silent), scripted("steady", Script{})}, {},
                                  quiet_options(dir));
    REQUIRE(summary.has_value());
    CHECK(summary->games_done == 2);
    int substitutes = 0;
    for (const auto& e : read_events(dir)) {
      if (e["type"] == "move" && !e["substitute"].is_null()) {
        ++substitutes;
        CHECK(e["substitute"] == "random_move");
        CHECK(e["agent"] == "mute");
        CHECK(e["failure"]["kind"] == "timeout");
      }
      if (e["type"] == "game_end") CHECK(e["reason"] == "max plies");
      if (e["type"] == "tournament_end") CHECK(e["deadline_misses"].get<int>() >= 1);
    }
    CHECK(substitutes >= 2);
    CHECK(pgn_extract_errors(read_text(dir / "games.pgn"), dir) == "");
    fs::remove_all(dir);
  }
  SECTION("loss_on_time") {
    const fs::path dir = fresh_dir("tourney", "loss_on_time");
    config.deadline_policy = config::DeadlinePolicy::LossOnTime;
    auto summary = run_tournament(config, {scripted("mute", silent), scripted("steady", Script{})}, {},
                                  quiet_options(dir));
    REQUIRE(summary.has_value());
    for (const auto& e : read_events(dir))
      if (e["type"] == "game_end") {
        CHECK(e["termination"] == "time forfeit");
        CHECK(e["failure_agent"] == "mute");
      }
    fs::remove_all(dir);
  }
}

TEST_CASE("clocks run out and appear as [%clk] in the PGN", "[arena]") {
  const fs::path dir = fresh_dir("tourney", "clock");
  auto config = quick_config({"chess"}, 2);
  config.clock = config::ClockConfig{std::chrono::milliseconds(300), std::chrono::milliseconds(10)};
  config.adjudication.max_plies = 200;
  // 60 ms a move against a 300 ms clock with 10 ms increments: "slow" flags after a few moves.
  auto summary = run_tournament(
      config,
      {scripted("slow", Script{Script::Mode::Good, -1, std::chrono::milliseconds(60)}), scripted("fast", {})},
      {}, quiet_options(dir));
  REQUIRE(summary.has_value());
  for (const auto& e : read_events(dir))
    if (e["type"] == "game_end") {
      CHECK(e["termination"] == "time forfeit");
      CHECK(e["failure_agent"] == "slow");
    }
  const std::string pgn = read_text(dir / "games.pgn");
  CHECK(pgn.find("[%clk 0:00:00.") != std::string::npos);
  CHECK(pgn.find("[TimeControl \"0.3+0.01\"]") != std::string::npos);
  CHECK(pgn_extract_errors(pgn, dir) == "");
  fs::remove_all(dir);
}

TEST_CASE("a slow game does not hold up a fast one", "[arena]") {
  const fs::path dir = fresh_dir("tourney", "slow");
  auto config = quick_config({"chess"}, 1);
  config.concurrency = 2;
  config.adjudication.max_plies = 20;
  const Script slow{Script::Mode::Good, -1, std::chrono::milliseconds(40)};
  // A round robin of two slow and two fast agents, every game in flight at once.
  std::vector<Participant> players = {scripted("slow-a", slow), scripted("slow-b", slow),
                                      scripted("fast-a", {}), scripted("fast-b", {})};
  config.agents = {};
  config.concurrency = 6;
  auto summary = run_tournament(config, players, {}, quiet_options(dir));
  REQUIRE(summary.has_value());
  std::map<std::string, double> end_time;
  std::map<std::string, std::pair<std::string, std::string>> who;
  for (const auto& e : read_events(dir)) {
    if (e["type"] == "game_start") who[e["game"]] = {e["first"], e["second"]};
    if (e["type"] == "game_end") end_time[e["game"]] = e["time"];
  }
  double fast_end = 0, slow_end = 0;
  for (const auto& [game, players_of] : who) {
    const bool fast = players_of.first.starts_with("fast") && players_of.second.starts_with("fast");
    const bool slow_game = players_of.first.starts_with("slow") && players_of.second.starts_with("slow");
    if (fast) fast_end = end_time[game];
    if (slow_game) slow_end = end_time[game];
  }
  REQUIRE(fast_end > 0);
  REQUIRE(slow_end > 0);
  // 20 plies at 40 ms each take 0.8 s; the fast game's 20 plies at a 1 ms tick finish far earlier.
  CHECK(fast_end + 0.4 < slow_end);
  fs::remove_all(dir);
}

TEST_CASE("the SPRT stops a decided match early; observers see every logged event", "[arena]") {
  const fs::path dir = fresh_dir("tourney", "sprt");
  auto config = quick_config({"chess"}, 400);
  config.concurrency = 2;
  config.sprt = config::SprtConfig{0, 100, 0.05, 0.05};
  RecordingObserver observer;
  RunOptions o = quiet_options(dir);
  o.observer = &observer;
  // "quitter" resigns at once: "steady" wins every game, the pentanomial counts are all WW.
  auto summary = run_tournament(
      config, {scripted("steady", {}), scripted("quitter", {Script::Mode::Resign, 0, {}})}, {}, o);
  REQUIRE(summary.has_value());
  CHECK(summary->sprt_stopped);
  CHECK_FALSE(summary->interrupted);
  CHECK(summary->games_total == 400);
  CHECK(summary->games_done < 100);
  const auto standings = nlohmann::json::parse(read_text(dir / "standings.json"));
  CHECK(standings["sprt"]["decision"] == "H1");
  CHECK(standings["sprt"]["llr"].get<double>() >= standings["sprt"]["upper"].get<double>());
  CHECK(standings["sprt"]["upper"].get<double>() == Approx(std::log(0.95 / 0.05)));
  // The observer got every event of the log, in order, with the same seq.
  const auto logged = read_events(dir);
  std::vector<nlohmann::json> observed;
  for (const auto& e : observer.events)
    if (e.contains("seq")) observed.push_back(e);
  REQUIRE(observed.size() == logged.size());
  for (size_t i = 0; i < logged.size(); ++i) CHECK(observed[i] == logged[i]);
  fs::remove_all(dir);
}
