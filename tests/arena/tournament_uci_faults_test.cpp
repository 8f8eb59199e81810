// A UCI engine that fails in the middle of a tournament: killed (SIGKILL), stopped (SIGSTOP) or
// flooding its output during a search. The game it is playing ends as docs/events.md says (a
// crash is "abandoned", a timeout under loss_on_time a "time forfeit", both against its agent),
// the games it is not in are unaffected, each of its games gets a fresh engine process (else the
// second would fail as "the engine is gone" at once), and no engine process outlives the run.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "arena/tournament/runner.h"
#include "tests/agents/fake_uci_engine.h"
#include "tests/arena/scripted_agent.h"
#include "tests/arena/tournament_test_files.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace arena;
using namespace arena::tournament;

namespace {

// An agent over the fake engine, failing as `mode` on its first `go` of every game.
Participant faulty_engine(const std::string& name, const std::string& mode) {
  agents::UciAgentConfig uci;
  uci.command = agents::test::fake_engine_path();
  uci.args = {mode, ""};
  uci.startup_timeout = 5000ms;
  uci.move_margin = 200ms;
  return arena::test::player({name, {}, uci});
}

// How many running processes have `needle` in their command line.
int processes_running(const std::string& needle) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(needle) != std::string::npos) ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("a UCI engine killed, stopped or flooding mid-search loses its game; the others play on",
          "[arena][uci]") {
  const fs::path dir = arena::test::fresh_dir("tourney", "uci-faults");
  auto config = arena::test::quick_config({"chess"}, 2);
  config.concurrency = 3;
  config.move_deadline = 300ms;
  config.deadline_policy = config::DeadlinePolicy::LossOnTime;
  config.adjudication.max_plies = 30;
  const std::map<std::string, std::string> expected_kind = {
      {"killed", "crashed"}, {"stopped", "timeout"}, {"flooder", "timeout"}};
  std::vector<Participant> players = {faulty_engine("killed", "kill"), faulty_engine("stopped", "stop"),
                                      faulty_engine("flooder", "flood"),
                                      arena::test::player({"steady-a", {}, agents::RandomAgentConfig{1}}),
                                      arena::test::player({"steady-b", {}, agents::RandomAgentConfig{2}})};
  auto summary = run_tournament(config, players, {}, arena::test::quiet_options(dir));
  REQUIRE(summary.has_value());
  CHECK(summary->games_done == 20);  // 10 pairings x 2

  std::map<std::string, std::pair<std::string, std::string>> seats;
  int faulty_games = 0, steady_games = 0;
  for (const auto& e : arena::test::read_events(dir)) {
    if (e["type"] == "game_start") seats[e["game"]] = {e["first"], e["second"]};
    if (e["type"] != "game_end") continue;
    const auto& [first, second] = seats.at(e["game"]);
    INFO(e.dump());
    if (first.starts_with("steady") && second.starts_with("steady")) {
      ++steady_games;  // never touched by the failing engines
      CHECK_FALSE(e.contains("failure_agent"));
      CHECK(e["termination"] != "abandoned");
      CHECK(e["termination"] != "time forfeit");
      continue;
    }
    ++faulty_games;
    // The failing agent is the first engine to move; it fails on that move, whatever came before.
    const std::string agent = e["failure_agent"];
    REQUIRE(expected_kind.contains(agent));
    CHECK(e["failure_kind"] == expected_kind.at(agent));
    CHECK(e["termination"] == (expected_kind.at(agent) == "crashed" ? "abandoned" : "time forfeit"));
    CHECK(e["plies"].get<int>() <= 1);
  }
  CHECK(steady_games == 2);
  CHECK(faulty_games == 18);
  CHECK(processes_running(agents::test::fake_engine_path()) == 0);
  fs::remove_all(dir);
}
