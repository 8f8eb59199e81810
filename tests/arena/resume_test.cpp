// Resume: a tournament stopped at several points (in the middle of a game, between games, with a
// torn last line in the event log, twice in a row) and resumed from its event log ends with the
// same games (PGN moves and results) and the same standings as an uninterrupted run with the
// same seed; nothing is lost or played twice; a changed tournament is refused. (Killing the real
// binary with SIGKILL is the CLI tests' part.)
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "agents/agent_config.h"
#include "arena/tournament/event_log.h"
#include "arena/tournament/runner.h"
#include "tests/arena/tournament_test_files.h"

namespace fs = std::filesystem;
using namespace arena;
using namespace arena::tournament;

using arena::test::fresh_dir;
using arena::test::player;
using arena::test::read_text;

namespace {

std::vector<Participant> players() {
  agents::SearchAgentConfig search;
  search.depth = 1;
  return {player({"random-a", {}, agents::RandomAgentConfig{11}}), player({"search", {}, search}),
          player({"random-b", {}, agents::RandomAgentConfig{12}})};
}

config::TournamentConfig tourney_config() {
  config::TournamentConfig c;
  c.games = {"chess", "janggi"};
  c.games_per_pairing = 2;
  c.concurrency = 3;
  c.tick = std::chrono::milliseconds(1);
  c.move_deadline = std::chrono::milliseconds(30000);
  c.adjudication.max_plies = 40;
  c.openings.janggi_setups = true;
  c.seed = 5;
  return c;
}

// Stops the run (through RunOptions::stop) when `when` says so.
class StopObserver final : public TournamentObserver {
 public:
  explicit StopObserver(std::function<bool(const nlohmann::json&)> when) : when_(std::move(when)) {}
  void on_event(const Event& event) override {
    if (when_(nlohmann::json(event))) stop.store(true);
  }
  std::atomic<bool> stop{false};

 private:
  std::function<bool(const nlohmann::json&)> when_;
};

RunOptions options(const fs::path& dir, bool resume) {
  RunOptions o;
  o.output_dir = dir;
  o.resume = resume;
  o.quiet = true;
  o.config_hash = "h1";
  return o;
}

// The PGN without comments: the tags, moves and results that must match game for game.
std::string pgn_moves(const fs::path& dir) {
  return std::regex_replace(read_text(dir / "games.pgn"), std::regex("\\{[^}]*\\}\\s*"), "");
}

// The standings without the timing numbers.
nlohmann::json results(const fs::path& dir) {
  auto s = nlohmann::json::parse(read_text(dir / "standings.json"));
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : s["rows"])
    out.push_back({r["agent"], r["games"], r["wins"], r["draws"], r["losses"], r["points"], r["elo"],
                   r["elo_error"], r["pentanomial"], r["moves"]});
  return out;
}

// Each game index finished exactly once in the log.
void check_log_complete(const fs::path& dir, int games) {
  std::map<int, int> finished;
  std::map<std::string, int> index_of;
  for (std::ifstream in(dir / "events.jsonl"); !in.eof();) {
    std::string line;
    if (!std::getline(in, line) || line.empty()) continue;
    const auto e = nlohmann::json::parse(line);
    if (e["type"] == "game_start") index_of[e["game"]] = e["index"];
    if (e["type"] == "game_end" && e["result"] != "*") ++finished[index_of[e["game"]]];
  }
  CHECK(int(finished.size()) == games);
  for (const auto& [index, n] : finished) CHECK(n == 1);
}

struct Reference {
  fs::path dir = fresh_dir("resume", "reference");
  Reference() {
    auto summary = run_tournament(tourney_config(), players(), {}, options(dir, false));
    REQUIRE(summary.has_value());
    REQUIRE(summary->games_done == 12);
  }
  ~Reference() { fs::remove_all(dir); }
};

// Runs with `stop_when` until stopped, then resumes until done; compares with the reference.
void interrupt_and_resume(const Reference& ref, const std::string& name,
                          std::function<bool(const nlohmann::json&)> stop_when, bool tear_last_line = false) {
  const fs::path dir = fresh_dir("resume", name);
  StopObserver observer(std::move(stop_when));
  RunOptions first = options(dir, false);
  first.stop = &observer.stop;
  first.observer = &observer;
  auto stopped = run_tournament(tourney_config(), players(), {}, first);
  REQUIRE(stopped.has_value());
  CHECK(stopped->interrupted);
  CHECK(stopped->games_done < 12);
  if (tear_last_line)
    std::ofstream(dir / "events.jsonl", std::ios::app) << "{\"type\":\"move\",\"game\":\"g00";
  auto resumed = run_tournament(tourney_config(), players(), {}, options(dir, true));
  REQUIRE(resumed.has_value());
  CHECK_FALSE(resumed->interrupted);
  CHECK(resumed->games_done == 12);
  CHECK(pgn_moves(dir) == pgn_moves(ref.dir));
  CHECK(results(dir) == results(ref.dir));
  check_log_complete(dir, 12);
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("resume after a stop gives the uninterrupted run's games and standings", "[arena]") {
  const Reference ref;
  // The reference run is itself reproducible.
  const fs::path again = fresh_dir("resume", "again");
  REQUIRE(run_tournament(tourney_config(), players(), {}, options(again, false)).has_value());
  CHECK(pgn_moves(again) == pgn_moves(ref.dir));
  fs::remove_all(again);

  int moves = 0;
  interrupt_and_resume(ref, "mid_game",
                       [&](const nlohmann::json& e) { return e["type"] == "move" && ++moves == 7; });
  int ends = 0;
  interrupt_and_resume(ref, "between_games",
                       [&](const nlohmann::json& e) { return e["type"] == "game_end" && ++ends == 2; });
  moves = 0;
  interrupt_and_resume(
      ref, "torn_line", [&](const nlohmann::json& e) { return e["type"] == "move" && ++moves == 60; }, true);
}

TEST_CASE("resume twice, and a changed tournament is refused", "[arena]") {
  const Reference ref;
  const fs::path dir = fresh_dir("resume", "twice");
  for (int round = 0; round < 2; ++round) {
    int moves = 0;
    StopObserver observer([&](const nlohmann::json& e) { return e["type"] == "move" && ++moves == 25; });
    RunOptions o = options(dir, round > 0);
    o.stop = &observer.stop;
    o.observer = &observer;
    auto r = run_tournament(tourney_config(), players(), {}, o);
    REQUIRE(r.has_value());
    CHECK(r->interrupted);
  }
  auto changed = tourney_config();
  changed.seed = 6;
  auto refused = run_tournament(changed, players(), {}, options(dir, true));
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().find("seed 5 (now 6)") != std::string::npos);
  RunOptions other_hash = options(dir, true);
  other_hash.config_hash = "h2";
  refused = run_tournament(tourney_config(), players(), {}, other_hash);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().find("config hash h1 (now h2)") != std::string::npos);
  // Without --resume an existing run is never overwritten.
  CHECK_FALSE(run_tournament(tourney_config(), players(), {}, options(dir, false)).has_value());
  auto done = run_tournament(tourney_config(), players(), {}, options(dir, true));
  REQUIRE(done.has_value());
  CHECK(done->games_done == 12);
  CHECK(pgn_moves(dir) == pgn_moves(ref.dir));
  CHECK(results(dir) == results(ref.dir));
  check_log_complete(dir, 12);
  fs::remove_all(dir);
}

TEST_CASE("the event log reader tolerates a torn last line only", "[arena]") {
  const fs::path dir = fresh_dir("resume", "log");
  fs::create_directories(dir);
  const fs::path path = dir / "events.jsonl";
  std::ofstream(path)
      << "{\"seq\":1,\"type\":\"tournament_start\"}\n{\"seq\":2,\"type\":\"game_start\"}\n{\"seq\":3,\"ty";
  auto contents = read_event_log(path);
  REQUIRE(contents.has_value());
  CHECK(contents->events.size() == 2);
  CHECK(contents->truncated);
  std::vector<Event> existing;
  {
    auto log = EventLog::open(path, true, &existing);
    REQUIRE(log.has_value());
    CHECK(existing.size() == 2);
    CHECK(log->next_seq() == 3);
    Event e{std::nullopt, 0, TournamentEnd{}};
    REQUIRE(log->append(e).has_value());
    CHECK(e.seq == 3);
  }
  auto reread = read_event_log(path);
  REQUIRE(reread.has_value());
  CHECK_FALSE(reread->truncated);
  REQUIRE(reread->events.size() == 3);
  CHECK(reread->events[2]["seq"] == 3);

  std::ofstream(path)
      << "{\"seq\":1,\"type\":\"tournament_start\"}\n{broken\n{\"seq\":3,\"type\":\"game_start\"}\n";
  auto damaged = read_event_log(path);
  REQUIRE_FALSE(damaged.has_value());
  CHECK(damaged.error().find(":2:") != std::string::npos);
  CHECK_FALSE(EventLog::open(path, false, nullptr).has_value());  // never overwrites a log
  fs::remove_all(dir);
}
