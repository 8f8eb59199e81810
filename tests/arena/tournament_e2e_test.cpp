// End-to-end tournaments through run_tournament: the random and search agents (and small scripted
// agents for the failure paths) playing chess and janggi. Checked: every chess game passes
// pgn-extract, every janggi game read back from games.pgn replays with legal, unambiguous SAN,
// the event log's shape, the standings' arithmetic, agent failures as results, deadline
// policies, clocks, and that a slow game does not hold up a fast one.
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
#include "tests/arena/tournament_test_files.h"

namespace fs = std::filesystem;
using namespace arena;
using namespace arena::tournament;

using arena::test::fresh_dir;
using arena::test::player;
using arena::test::read_events;
using arena::test::read_text;

namespace {

Participant random_player(const std::string& name, uint64_t seed) {
  return player({name, {}, agents::RandomAgentConfig{seed}});
}

Participant search_player(const std::string& name, int depth) {
  agents::SearchAgentConfig c;
  c.depth = depth;
  return player({name, {}, c});
}

// A scripted agent: plays the first legal move, answering after `delay` on its own thread (or at
// once); at ply `bad_ply` it misbehaves as `mode` says.
struct Script {
  enum class Mode { Good, Illegal, Resign, Silent, Crash } mode = Mode::Good;
  int bad_ply = -1;
  std::chrono::milliseconds delay{0};
};

class ScriptedAgent final : public agents::Agent {
 public:
  ScriptedAgent(std::string name, Script script) : name_(std::move(name)), script_(script) {}
  ~ScriptedAgent() override {
    for (auto& t : threads_) t.join();
  }
  const std::string& name() const override { return name_; }
  bool supports(std::string_view) const override { return true; }
  std::optional<agents::MoveFailure> new_game(const agents::GameStart&) override { return std::nullopt; }
  std::shared_ptr<agents::MoveTicket> start_move(const agents::MoveRequest& request) override {
    agents::MoveResult r;
    const auto legal = request.game->legal_moves();
    r.move = legal.empty() ? "" : legal.front();
    r.score_cp = 0;
    const int ply = int(request.moves.size());
    if (ply >= script_.bad_ply && script_.bad_ply >= 0) {
      switch (script_.mode) {
        case Script::Mode::Illegal:
          r.move.clear();
          r.failure = agents::MoveFailure{agents::FailureKind::Illegal, "answer 'Qh9' is not a legal move"};
          break;
        case Script::Mode::Resign:
          r.move.clear();
          r.resigned = true;
          break;
        case Script::Mode::Crash:
          r.move.clear();
          r.failure = agents::MoveFailure{agents::FailureKind::Crashed, "pipe closed"};
          break;
        case Script::Mode::Silent: {
          // Never answers by itself; resolves as cancelled when the arena cancels.
          auto ticket = std::make_shared<agents::MoveTicket>();
          ticket->set_on_ready(request.on_ready);
          std::weak_ptr<agents::MoveTicket> weak = ticket;
          ticket->set_cancel_hook([weak] {
            if (auto t = weak.lock()) {
              agents::MoveResult c;
              c.failure = agents::MoveFailure{agents::FailureKind::Cancelled, "cancelled"};
              t->resolve(c);
            }
          });
          return ticket;
        }
        case Script::Mode::Good:
          break;
      }
    }
    if (script_.delay.count() == 0) return agents::resolved_ticket(r, request);
    auto ticket = std::make_shared<agents::MoveTicket>();
    ticket->set_on_ready(request.on_ready);
    threads_.emplace_back([ticket, r, delay = script_.delay] {
      std::this_thread::sleep_for(delay);
      ticket->resolve(r);
    });
    return ticket;
  }
  void end_game(const agents::GameEnd&) override {}

 private:
  std::string name_;
  Script script_;
  std::vector<std::thread> threads_;
};

Participant scripted(const std::string& name, Script script) {
  Participant p;
  p.name = name;
  p.make = [name, script]() -> std::expected<std::unique_ptr<agents::Agent>, agents::AgentError> {
    return std::make_unique<ScriptedAgent>(name, script);
  };
  return p;
}

config::TournamentConfig quick_config(std::vector<std::string> games, int32_t per_pairing) {
  config::TournamentConfig c;
  c.games = std::move(games);
  c.games_per_pairing = per_pairing;
  c.concurrency = 3;
  c.tick = std::chrono::milliseconds(1);
  c.move_deadline = std::chrono::milliseconds(20000);
  c.adjudication.max_plies = 60;
  c.seed = 7;
  return c;
}

RunOptions quiet_options(const fs::path& dir) {
  RunOptions o;
  o.output_dir = dir;
  o.quiet = true;
  o.config_hash = "test";
  return o;
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

fs::path pgn_extract_binary() {
  for (const char* p : {"/usr/bin/pgn-extract", "/usr/games/pgn-extract"})
    if (fs::exists(p)) return p;
  return {};
}

// pgn-extract's complaints about `pgn` (empty when it reads every game without error).
std::string pgn_extract_errors(const std::string& pgn, const fs::path& dir) {
  const fs::path bin = pgn_extract_binary();
  REQUIRE_FALSE(bin.empty());  // Debian's pgn-extract (scripts/deps.sh installs it)
  const fs::path file = dir / "chess_only.pgn";
  std::ofstream(file) << pgn;
  const std::string cmd = bin.string() + " -r -s " + file.string() + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  ::pclose(pipe);
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

namespace {

class RecordingObserver final : public TournamentObserver {
 public:
  void on_event(const nlohmann::json& event) override { events.push_back(event); }
  std::vector<nlohmann::json> events;
};

}  // namespace

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
