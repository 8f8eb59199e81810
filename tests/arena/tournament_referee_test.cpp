// The adjudication referee and per-request deadlines in real tournaments: a Stockfish (chess) or
// Fairy-Stockfish (janggi) referee ends search-vs-random games by the resign rule on its own
// scores (random reports none, so only the referee can make it resign), with its score in every
// move event; a referee that cannot start (/bin/cat never says uciok) or never answers a search
// falls back to the players' scores with a warning, and every game still finishes; the referee's
// best move is legal in each position it scored, and the standings' move quality ranks random's
// moves below the search's by the referee's scores; each move request carries min(the tick's
// window, the mover's clock) as its deadline and the mover's time left as its priority.
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "agents/agent_config.h"
#include "arena/tournament/referee.h"
#include "arena/tournament/runner.h"
#include "games/game.h"
#include "tests/arena/tournament_test_files.h"

namespace fs = std::filesystem;
using namespace arena;
using namespace arena::tournament;
using std::chrono::milliseconds;

using arena::test::fresh_dir;
using arena::test::player;
using arena::test::read_events;

namespace {

std::vector<Participant> search_and_random() {
  agents::SearchAgentConfig search;
  search.depth = 2;
  return {player({"search", {}, search}), player({"random", {}, agents::RandomAgentConfig{3}})};
}

agents::AgentConfig referee_config(const std::string& command) {
  agents::UciAgentConfig uci;
  uci.command = command;
  uci.depth = 6;
  uci.startup_timeout = milliseconds(2000);
  return agents::AgentConfig{"ref", {}, uci};
}

config::TournamentConfig resign_config(const std::string& variant, const agents::AgentConfig& referee) {
  config::TournamentConfig c;
  c.games = {variant};
  c.games_per_pairing = 2;
  c.concurrency = 2;
  c.tick = milliseconds(1);
  c.move_deadline = milliseconds(30000);
  c.adjudication.max_plies = 300;
  c.adjudication.referee = referee.name;
  c.adjudication.referee_agent = referee;
  c.adjudication.resign_move_count = 2;
  c.adjudication.resign_score_cp = 400;
  c.seed = 7;
  return c;
}

RunOptions quiet_options(const fs::path& dir) {
  RunOptions o;
  o.output_dir = dir;
  o.quiet = true;
  return o;
}

// Collects the warnings logged while it lives.
struct WarningLog {
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
  spdlog::level::level_enum level = spdlog::default_logger()->level();
  WarningLog() {
    sink->set_level(spdlog::level::warn);
    spdlog::default_logger()->sinks().push_back(sink);
    if (level > spdlog::level::warn) spdlog::default_logger()->set_level(spdlog::level::warn);
  }
  ~WarningLog() {
    auto& sinks = spdlog::default_logger()->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
    spdlog::default_logger()->set_level(level);
  }
  std::string text() const {
    std::string all;
    for (const auto& line : sink->last_formatted()) all += line;
    return all;
  }
};

// A move event's `referee_best` is a legal move in the position after the move (the referee's
// choice for the side to move there).
void check_referee_best(const std::string& variant, const nlohmann::json& move) {
  INFO(move.dump());
  REQUIRE(move["referee_best"].is_string());
  auto game = games::make_game(variant, move["fen"].get<std::string>());
  REQUIRE(game.has_value());
  const auto legal = (*game)->legal_moves();
  CHECK(std::find(legal.begin(), legal.end(), move["referee_best"].get<std::string>()) != legal.end());
}

// The standings judge the moves by the referee's scores: random loses more centipawns per move
// than a depth-2 search, in standings.json's move-quality block and the last `standings` event.
void check_move_quality(const fs::path& dir) {
  const auto standings = nlohmann::json::parse(arena::test::read_text(dir / "standings.json"));
  INFO(standings.dump(1));
  const auto& quality = standings["move_quality"];
  REQUIRE(quality.contains("search"));
  REQUIRE(quality.contains("random"));
  CHECK(quality["search"]["moves"].get<int>() > 0);
  CHECK(quality["random"]["moves"].get<int>() > 0);
  CHECK(quality["random"]["acpl"].get<double>() > quality["search"]["acpl"].get<double>());
  CHECK(quality["random"]["accuracy"].get<double>() < quality["search"]["accuracy"].get<double>());
  CHECK(quality["random"]["blunders"].get<int>() + quality["random"]["mistakes"].get<int>() > 0);
  CHECK(arena::test::read_text(dir / "standings.txt").find("Move quality by the referee") !=
        std::string::npos);
  nlohmann::json last;
  for (const auto& e : read_events(dir))
    if (e["type"] == "standings") last = e;
  REQUIRE(last.is_object());
  for (const auto& row : last["rows"]) {
    CHECK(row["acpl"] == quality[row["agent"].get<std::string>()]["acpl"]);
    CHECK(row["blunders"].is_number_integer());
  }
}

// Games of the run end by the referee's resign rule against random (at least one; the others by
// the rules, e.g. janggi's passes), and the scores the rule saw were the referee's (random's own
// are null): every move but a game's rule-ending last one carries the referee's score.
void check_resigned_by_referee(const std::string& variant, const fs::path& dir) {
  const auto events = read_events(dir);
  std::map<std::string, std::vector<nlohmann::json>> moves;
  int ends = 0, adjudicated = 0;
  for (const auto& e : events) {
    if (e["type"] == "move") moves[e["game"]].push_back(e);
    if (e["type"] != "game_end") continue;
    ++ends;
    INFO(e.dump());
    const auto& m = moves[e["game"]];
    REQUIRE(!m.empty());
    const bool by_referee = e["termination"] == "adjudication";
    for (size_t i = 0; i + (by_referee ? 0 : 1) < m.size(); ++i) {
      CHECK(m[i]["referee_cp"].is_number_integer());
      check_referee_best(variant, m[i]);
    }
    if (!by_referee) {
      CHECK(e["termination"] == "normal");
      continue;
    }
    ++adjudicated;
    CHECK(e["reason"] == "adjudicated win for search (resign rule)");
    std::vector<int> random_scores;
    for (const auto& move : m)
      if (move["agent"] == "random") {
        CHECK(move["score_cp"].is_null());
        random_scores.push_back(move["referee_cp"].get<int>());
      }
    REQUIRE(random_scores.size() >= 2);
    CHECK(random_scores[random_scores.size() - 1] <= -400);
    CHECK(random_scores[random_scores.size() - 2] <= -400);
  }
  CHECK(ends == 2);
  CHECK(adjudicated >= 1);
}

}  // namespace

TEST_CASE("a mate score as centipawns", "[arena]") {
  CHECK(mate_score_cp(3) == 29997);
  CHECK(mate_score_cp(-2) == -29998);
  CHECK(mate_score_cp(0) == -30000);
}

namespace {

// Two resign-rule games of `variant` adjudicated by the UCI engine at `engine`, when installed.
void check_referee_resigns(const std::string& variant, const std::string& engine) {
  if (!fs::exists(engine)) {
    WARN(engine << " is not installed (scripts/deps.sh installs it): not run");
    return;
  }
  const fs::path dir = fresh_dir("referee", variant);
  // A loaded machine took over the 2 s of referee_config to start Fairy-Stockfish once (CI
  // pre-check), and then no move had a referee score.
  auto referee = referee_config(engine);
  std::get<agents::UciAgentConfig>(referee.params).startup_timeout = milliseconds(10000);
  auto summary = run_tournament(resign_config(variant, referee), search_and_random(), {}, quiet_options(dir));
  REQUIRE(summary.has_value());
  CHECK(summary->games_done == 2);
  check_resigned_by_referee(variant, dir);
  check_move_quality(dir);
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("a Stockfish referee adjudicates chess by the resign rule", "[arena]") {
  check_referee_resigns("chess", "/usr/games/stockfish");
}

TEST_CASE("a Fairy-Stockfish referee adjudicates janggi by the resign rule", "[arena]") {
  check_referee_resigns("janggi", "/usr/games/fairy-stockfish");
}

TEST_CASE("a referee that never says uciok: a warning, the players' scores, every game played", "[arena]") {
  const fs::path dir = fresh_dir("referee", "cat");
  auto referee = referee_config("/bin/cat");
  std::get<agents::UciAgentConfig>(referee.params).startup_timeout = milliseconds(300);
  WarningLog warnings;
  auto config = resign_config("chess", referee);
  config.adjudication.max_plies = 40;
  auto summary = run_tournament(config, search_and_random(), {}, quiet_options(dir));
  REQUIRE(summary.has_value());
  CHECK(summary->games_done == 2);
  CHECK_THAT(warnings.text(), Catch::Contains("adjudication referee 'ref' could not start") &&
                                  Catch::Contains("players' own scores"));
  for (const auto& e : read_events(dir)) {
    if (e["type"] == "move") CHECK_FALSE(e.contains("referee_cp"));
    // Random reports no score, so it can never lose by the resign rule without a referee.
    if (e["type"] == "game_end") CHECK(e["reason"] != "adjudicated win for search (resign rule)");
  }
  fs::remove_all(dir);
}

TEST_CASE("a referee that never answers a search: each game falls back once, none stalls", "[arena]") {
  const fs::path dir = fresh_dir("referee", "mute");
  fs::create_directories(dir);
  const fs::path script = dir / "mute_engine.sh";
  std::ofstream(script) << "#!/bin/sh\n"
                           "while read -r line; do\n"
                           "  case \"$line\" in\n"
                           "    uci) echo 'id name mute'; echo uciok ;;\n"
                           "    isready) echo readyok ;;\n"
                           "  esac\n"
                           "done\n";
  ::chmod(script.c_str(), 0755);
  auto referee = referee_config(script.string());
  auto& uci = std::get<agents::UciAgentConfig>(referee.params);
  uci.depth.reset();
  uci.movetime = milliseconds(100);
  uci.move_margin = milliseconds(100);
  WarningLog warnings;
  auto config = resign_config("chess", referee);
  config.adjudication.max_plies = 40;
  RunOptions o = quiet_options(dir / "out");
  const auto start = std::chrono::steady_clock::now();
  auto summary = run_tournament(config, search_and_random(), {}, o);
  REQUIRE(summary.has_value());
  CHECK(summary->games_done == 2);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  const std::string text = warnings.text();
  CHECK_THAT(text, Catch::Contains("game g0001: the adjudication referee gave no score"));
  CHECK_THAT(text, Catch::Contains("game g0002: the adjudication referee gave no score"));
  int moves = 0;
  for (const auto& e : read_events(dir / "out"))
    if (e["type"] == "move") {
      ++moves;
      CHECK(e["referee_cp"].is_null());
    }
  CHECK(moves >= 4);  // both games were played (search may mate random before max_plies)
  fs::remove_all(dir);
}

namespace {

// Plays the first legal move at once and records every request it gets.
class RecordingAgent final : public agents::Agent {
 public:
  struct Seen {
    agents::Clock::time_point asked, deadline;
    int32_t priority = 0;
    std::optional<agents::ClockState> clock;
    bool first_to_move = true;
  };
  explicit RecordingAgent(std::string name, std::shared_ptr<std::vector<Seen>> seen,
                          std::shared_ptr<std::mutex> m)
      : name_(std::move(name)), seen_(std::move(seen)), mutex_(std::move(m)) {}
  const std::string& name() const override { return name_; }
  bool supports(std::string_view) const override { return true; }
  std::optional<agents::MoveFailure> new_game(const agents::GameStart&) override { return std::nullopt; }
  std::shared_ptr<agents::MoveTicket> start_move(const agents::MoveRequest& request) override {
    {
      std::lock_guard lock(*mutex_);
      seen_->push_back(Seen{agents::Clock::now(), request.deadline, request.priority, request.clock,
                            request.game->side_to_move() == games::Side::First});
    }
    agents::MoveResult r;
    r.move = request.game->legal_moves().front();
    return agents::resolved_ticket(r, request);
  }
  void end_game(const agents::GameEnd&) override {}

 private:
  std::string name_;
  std::shared_ptr<std::vector<Seen>> seen_;
  std::shared_ptr<std::mutex> mutex_;
};

}  // namespace

TEST_CASE("move requests carry min(tick window, clock left) as deadline and the clock as priority",
          "[arena]") {
  auto seen = std::make_shared<std::vector<RecordingAgent::Seen>>();
  auto mutex = std::make_shared<std::mutex>();
  std::vector<Participant> parts;
  for (const char* name : {"a", "b"}) {
    Participant p;
    p.name = name;
    p.make = [=]() -> std::expected<std::unique_ptr<agents::Agent>, agents::AgentError> {
      return std::make_unique<RecordingAgent>(name, seen, mutex);
    };
    parts.push_back(std::move(p));
  }
  for (const int64_t base_ms : {60000, 200}) {
    seen->clear();
    config::TournamentConfig c;
    c.games = {"chess"};
    c.games_per_pairing = 2;
    c.concurrency = 2;
    c.tick = milliseconds(1);
    c.move_deadline = milliseconds(500);
    c.clock = config::ClockConfig{milliseconds(base_ms), milliseconds(0)};
    c.adjudication.max_plies = 20;
    const fs::path dir = fresh_dir("referee", "deadlines_" + std::to_string(base_ms));
    auto summary = run_tournament(c, parts, {}, quiet_options(dir));
    REQUIRE(summary.has_value());
    REQUIRE(seen->size() >= 20);
    for (const auto& s : *seen) {
      REQUIRE(s.clock);
      const milliseconds left = s.first_to_move ? s.clock->first_remaining : s.clock->second_remaining;
      CHECK(s.priority == left.count());
      // The runner computes the deadline just before the agent is asked: within a few ms of
      // asked + min(500 ms, clock left), never after it.
      const auto expected = s.asked + std::min(milliseconds(500), left);
      CHECK(s.deadline <= expected);
      CHECK(s.deadline > expected - milliseconds(50));
    }
    fs::remove_all(dir);
  }
}
