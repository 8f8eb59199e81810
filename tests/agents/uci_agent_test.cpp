// The UCI agent: protocol text, games against the real Debian engines (Stockfish for chess,
// Fairy-Stockfish for chess and janggi), and every way an engine can fail a move: killed mid-
// search, hung (never answers isready / never answers go), an illegal or unparseable bestmove,
// garbage on stdout, exiting. Each failure has its FailureKind, the process is reaped, and the
// next game gets a fresh engine.
#include "agents/uci/uci_agent.h"

#include <signal.h>
#include <sys/types.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "agents/random/random_agent.h"
#include "tests/agents/agent_match.h"
#include "tests/agents/fake_uci_engine.h"
#include "tests/common/testdata.h"

namespace {

using namespace std::chrono_literals;
using agents::FailureKind;

bool engine_installed(const char* path) {
  if (std::filesystem::exists(path)) return true;
  WARN("SKIPPED: " << path << " is not installed (scripts/deps.sh installs it)");
  return false;
}

constexpr const char* kStockfish = "/usr/games/stockfish";
constexpr const char* kFairy = "/usr/games/fairy-stockfish";

agents::AgentConfig uci_config(const std::string& command, std::vector<std::string> args = {}) {
  agents::UciAgentConfig uci;
  uci.command = command;
  uci.args = std::move(args);
  uci.movetime = 50ms;
  uci.startup_timeout = 5000ms;
  uci.move_margin = 300ms;
  return {"engine", {}, uci};
}

std::unique_ptr<agents::Agent> make(const agents::AgentConfig& config) {
  auto agent = agents::make_uci_agent(config, {});
  INFO((agent ? std::string() : agent.error().message));
  REQUIRE(agent);
  return std::move(*agent);
}

agents::MoveRequest start_request(const std::string& variant, std::chrono::milliseconds budget = 2000ms) {
  auto game = games::make_game(variant);
  REQUIRE(game);
  agents::MoveRequest request;
  request.start_fen = (*game)->fen();
  request.game = std::move(*game);
  request.deadline = agents::Clock::now() + budget;
  return request;
}

agents::GameStart game_start(const std::string& variant) {
  auto game = games::make_game(variant);
  REQUIRE(game);
  return {"g", variant, (*game)->fen(), games::Side::First, "opponent"};
}

// Whether process `pid` is gone entirely (not even a zombie waiting to be reaped).
bool process_gone(int pid) {
  return !std::filesystem::exists("/proc/" + std::to_string(pid));
}

agents::UciAgent& as_uci(agents::Agent& agent) {
  return dynamic_cast<agents::UciAgent&>(agent);
}

}  // namespace

TEST_CASE("uci protocol text", "[agents][uci]") {
  using namespace agents::uci;
  auto option = parse_option("option name Skill Level type spin default 20 min -20 max 20");
  REQUIRE(option);
  CHECK(option->name == "Skill Level");
  CHECK(option->type == "spin");
  auto combo =
      parse_option("option name UCI_Variant type combo default chess var chess var janggi var xiangqi");
  REQUIRE(combo);
  CHECK(combo->vars == std::vector<std::string>{"chess", "janggi", "xiangqi"});
  CHECK_FALSE(parse_option("id name Stockfish"));

  auto cp = parse_info_score("info depth 12 seldepth 15 multipv 1 score cp -35 nodes 1000 pv e7e5");
  REQUIRE(cp);
  CHECK(cp->cp == -35);
  auto mate = parse_info_score("info depth 5 score mate -3 pv a1a2");
  REQUIRE(mate);
  CHECK(mate->mate == -3);
  CHECK_FALSE(parse_info_score("info string score cp 10"));
  CHECK_FALSE(parse_info_score("info depth 3 nodes 10"));

  CHECK(parse_bestmove("bestmove e2e4 ponder e7e5") == "e2e4");
  CHECK(parse_bestmove("bestmove") == "");
  CHECK_FALSE(parse_bestmove("info bestmove"));
  CHECK(is_engine_message("info depth 1"));
  CHECK(is_engine_message("readyok"));
  CHECK_FALSE(is_engine_message("Segmentation fault"));

  CHECK(is_move_syntax("chess", "e7e8q"));
  CHECK_FALSE(is_move_syntax("chess", "e7e8k"));
  CHECK_FALSE(is_move_syntax("chess", "i1i2"));
  CHECK(is_move_syntax("janggi", "a10a9"));
  CHECK(is_move_syntax("janggi", "e2e2"));
  CHECK(is_move_syntax("janggimodern", "i1i10"));
  CHECK_FALSE(is_move_syntax("janggi", "a11a9"));
  CHECK_FALSE(is_move_syntax("janggi", "a1a2q"));

  CHECK(position_command("", {}) == "position startpos");
  CHECK(position_command("8/8/8/8/8/8/8/K1k5 w - - 0 1", {"a1a2"}) ==
        "position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 moves a1a2");
  CHECK(go_command({100ms, 5, std::nullopt}, std::nullopt, 1s) == "go movetime 100");
  CHECK(go_command({std::nullopt, 5, 1000}, std::nullopt, 1s) == "go depth 5 nodes 1000");
  agents::ClockState clock{60000ms, 55000ms, 1000ms};
  CHECK(go_command({}, clock, 1s) == "go wtime 60000 btime 55000 winc 1000 binc 1000");
  CHECK(go_command({}, std::nullopt, 750ms) == "go movetime 750");
}

namespace {

// The engine's `go perft 1` move list (its UCI move names) for `fen` under `variant`.
std::set<std::string> engine_moves(agents::uci::UciProcess& engine, const std::string& variant,
                                   const std::string& fen) {
  engine.send("setoption name UCI_Variant value " + variant);
  engine.send("position fen " + fen);
  engine.send("go perft 1");
  std::set<std::string> moves;
  std::string line;
  const auto until = agents::Clock::now() + 5s;
  while (engine.read_line(line, until) == agents::uci::UciProcess::Read::Line) {
    if (line.rfind("Nodes searched", 0) == 0) break;
    const auto colon = line.find(": ");
    if (colon != std::string::npos && line.find(' ') == colon + 1) moves.insert(line.substr(0, colon));
  }
  return moves;
}

}  // namespace

// Arena speaks the engines' move notation: for every position of the perft suites, the engine's
// own move list is exactly arena's legal moves (janggi: files a-i, ranks 1-10, the pass e2e2).
TEST_CASE("engine move names are arena's legal moves", "[agents][uci]") {
  ARENA_REQUIRE_TESTDATA(janggi_epd, "perft/janggi-random.epd");
  ARENA_REQUIRE_TESTDATA(chess_epd, "perft/chess-random.epd");
  if (!engine_installed(kFairy)) return;
  auto engine = agents::uci::UciProcess::start(kFairy, {});
  REQUIRE(engine);
  int compared = 0;
  for (const auto& [variant, path] : {std::pair{"janggi", janggi_epd}, std::pair{"chess", chess_epd}}) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const std::string fen = line.substr(0, line.find(" ;"));
      auto game = games::make_game(variant, fen);
      REQUIRE(game);
      if ((*game)->outcome().finished()) continue;  // ended by a rule the engine's perft ignores
      const auto legal = (*game)->legal_moves();
      INFO(variant << " " << fen);
      REQUIRE_FALSE(legal.empty());
      CHECK(engine_moves(**engine, variant, fen) == std::set<std::string>(legal.begin(), legal.end()));
      ++compared;
    }
  }
  CHECK(compared > 60);
}

TEST_CASE("uci agent plays chess with Stockfish", "[agents][uci]") {
  if (!engine_installed(kStockfish)) return;
  auto config = uci_config("stockfish");  // found in /usr/games
  auto& uci = std::get<agents::UciAgentConfig>(config.params);
  uci.skill_level = 5;
  uci.elo = 1500;  // UCI_LimitStrength + UCI_Elo
  uci.hash_mb = 8;
  auto engine = make(config);
  CHECK(as_uci(*engine).engine_name().find("Stockfish") != std::string::npos);
  CHECK(engine->supports("chess"));
  CHECK_FALSE(engine->supports("janggi"));
  agents::RandomAgent random("random", {}, 3);
  const auto match = agents::test::play_match(*engine, random, "chess", 12);
  // Skill Level picks among its best moves at random, so it sometimes mates random moves sooner.
  CHECK((match.plies == 12 || match.outcome.result == games::Outcome::Result::FirstWins));
  for (size_t i = 0; i < match.results.size(); i += 2) {
    CHECK(match.results[i].raw.find("bestmove") != std::string::npos);
    CHECK(match.results[i].prompt.rfind("position fen ", 0) == 0);
    CHECK((match.results[i].score_cp || match.results[i].mate_in));
  }
  // On a clock (no per-move limit configured) the engine manages its own time: go wtime/btime.
  auto clocked_config = uci_config("stockfish");
  std::get<agents::UciAgentConfig>(clocked_config.params).movetime.reset();
  auto clocked = make(clocked_config);
  REQUIRE_FALSE(clocked->new_game(game_start("chess")));
  auto request = start_request("chess", 2000ms);
  request.clock = agents::ClockState{2000ms, 2000ms, 0ms};
  const auto on_clock = clocked->start_move(request)->wait();
  CHECK(on_clock.ok());
  CHECK(on_clock.prompt.find("go wtime 2000 btime 2000") != std::string::npos);
  CHECK(on_clock.total_seconds < 1.0);
  auto janggi = engine->new_game(game_start("janggi"));
  REQUIRE(janggi);
  CHECK(janggi->kind == FailureKind::BackendError);
}

TEST_CASE("uci agent plays janggi and chess with Fairy-Stockfish", "[agents][uci]") {
  if (!engine_installed(kFairy)) return;
  auto config = uci_config(kFairy);
  auto& uci = std::get<agents::UciAgentConfig>(config.params);
  uci.movetime.reset();
  uci.depth = 3;
  auto engine = make(config);
  for (const char* v : {"chess", "janggi", "janggimodern", "janggicasual", "janggitraditional"})
    CHECK(engine->supports(v));
  agents::RandomAgent random("random", {}, 5);
  for (const char* variant : {"janggi", "janggimodern", "chess"}) {
    const auto match = agents::test::play_match(random, *engine, variant, 16);
    INFO(variant << ": " << match.outcome.reason);
    CHECK((match.plies == 16 || match.outcome.finished()));  // (Han wins at once when Cho passes)
    CHECK(match.results[1].prompt.find("go depth 3") != std::string::npos);
  }
  // Asked for a janggi move without new_game: the agent sets the variant up itself.
  auto fresh = make(config);
  const auto move = fresh->start_move(start_request("janggicasual"))->wait();
  CHECK(move.ok());
  // Restricted by the config.
  config.variants = {"janggi"};
  auto janggi_only = make(config);
  CHECK(janggi_only->supports("janggi"));
  CHECK_FALSE(janggi_only->supports("chess"));
}

TEST_CASE("uci agent: a killed engine is a crash, and the next game restarts it", "[agents][uci]") {
  if (!engine_installed(kFairy)) return;
  auto config = uci_config(kFairy);
  std::get<agents::UciAgentConfig>(config.params).movetime = 5000ms;
  auto engine = make(config);
  REQUIRE_FALSE(engine->new_game(game_start("janggi")));
  const int pid = as_uci(*engine).engine_pid();
  REQUIRE(pid > 0);
  auto ticket = engine->start_move(start_request("janggi", 10000ms));
  std::this_thread::sleep_for(100ms);
  REQUIRE(::kill(pid, SIGKILL) == 0);
  auto result = ticket->wait_for(3000ms);
  REQUIRE(result);
  REQUIRE(result->failure);
  CHECK(result->failure->kind == FailureKind::Crashed);
  CHECK(result->failure->message.find("signal 9") != std::string::npos);
  CHECK(process_gone(pid));

  REQUIRE_FALSE(engine->new_game(game_start("janggi")));
  CHECK(as_uci(*engine).engine_pid() != pid);
  auto again = engine->start_move(start_request("janggi", 400ms))->wait();  // movetime cut to the deadline
  CHECK(again.ok());
}

TEST_CASE("uci agent: hung engines time out without blocking", "[agents][uci]") {
  const std::string fake = agents::test::fake_engine_path();
  // Never answers isready: the agent cannot be made, and says why, within the startup timeout.
  {
    auto config = uci_config(fake, {"silent", "", "0"});
    std::get<agents::UciAgentConfig>(config.params).startup_timeout = 300ms;
    const auto started = agents::Clock::now();
    auto agent = agents::make_uci_agent(config, {});
    CHECK(agents::Clock::now() - started < 2s);
    REQUIRE_FALSE(agent);
    CHECK(agent.error().message.find("isready") != std::string::npos);
  }
  // Answers the handshake's isready, then never again: new_game times out; the next one restarts.
  {
    auto config = uci_config(fake, {"answer", "e2e4", "1"});
    std::get<agents::UciAgentConfig>(config.params).startup_timeout = 300ms;
    auto engine = make(config);
    const int pid = as_uci(*engine).engine_pid();
    auto failure = engine->new_game(game_start("chess"));
    REQUIRE(failure);
    CHECK(failure->kind == FailureKind::Timeout);
    std::this_thread::sleep_for(50ms);
    CHECK(process_gone(pid));
    CHECK(engine->new_game(game_start("chess")));  // the fresh engine hangs the same way
  }
  // Never answers go: Timeout at the deadline plus the margin, and the engine is ended.
  {
    auto engine = make(uci_config(fake, {"silent", ""}));
    REQUIRE_FALSE(engine->new_game(game_start("chess")));
    const int pid = as_uci(*engine).engine_pid();
    auto request = start_request("chess", 200ms);
    const auto started = agents::Clock::now();
    const auto result = engine->start_move(request)->wait();
    const auto took = agents::Clock::now() - started;
    CHECK(took >= 450ms);  // 200 ms deadline + 300 ms margin
    CHECK(took < 1500ms);
    REQUIRE(result.failure);
    CHECK(result.failure->kind == FailureKind::Timeout);
    std::this_thread::sleep_for(50ms);
    CHECK(process_gone(pid));
    // The next move of the same game cannot be played; the next game can.
    auto next = engine->start_move(start_request("chess"))->wait();
    REQUIRE(next.failure);
    CHECK(next.failure->kind == FailureKind::Crashed);
    REQUIRE_FALSE(engine->new_game(game_start("chess")));
  }
}

TEST_CASE("uci agent: illegal, unparseable and garbage answers, and an engine that exits", "[agents][uci]") {
  const std::string fake = agents::test::fake_engine_path();
  struct Case {
    std::vector<std::string> args;
    FailureKind kind;
    const char* message;
  };
  const Case cases[] = {
      {{"answer", "e2e5"}, FailureKind::Illegal, "e2e5"},
      {{"answer", "e9e10"}, FailureKind::Unparseable, "not a move"},
      {{"answer", "(none)"}, FailureKind::Unparseable, "not a move"},
      {{"garbage", "Segmentation fault (core dumped)"}, FailureKind::Unparseable, "Segmentation fault"},
      {{"exit", "3"}, FailureKind::Crashed, "status 3"},
  };
  for (const auto& c : cases) {
    INFO(c.args[0] << " " << c.args[1]);
    auto engine = make(uci_config(fake, c.args));
    REQUIRE_FALSE(engine->new_game(game_start("chess")));
    const int pid = as_uci(*engine).engine_pid();
    const auto result = engine->start_move(start_request("chess"))->wait();
    REQUIRE(result.failure);
    CHECK(result.failure->kind == c.kind);
    CHECK(result.failure->message.find(c.message) != std::string::npos);
    std::this_thread::sleep_for(50ms);
    CHECK(process_gone(pid));
    REQUIRE_FALSE(engine->new_game(game_start("chess")));  // restarted
    CHECK(as_uci(*engine).engine_pid() != pid);
  }
  // A legal answer from the same script is played, with its score.
  auto good = make(uci_config(fake, {"answer", "g1f3"}));
  REQUIRE_FALSE(good->new_game(game_start("chess")));
  const auto result = good->start_move(start_request("chess"))->wait();
  REQUIRE(result.ok());
  CHECK(result.move == "g1f3");
  CHECK(result.score_cp == 12);
}

TEST_CASE("uci agent: cancel stops the search; the next move still works", "[agents][uci]") {
  if (!engine_installed(kStockfish)) return;
  auto config = uci_config(kStockfish);
  std::get<agents::UciAgentConfig>(config.params).movetime = 10000ms;
  auto engine = make(config);
  REQUIRE_FALSE(engine->new_game(game_start("chess")));
  auto ticket = engine->start_move(start_request("chess", 20000ms));
  std::this_thread::sleep_for(50ms);
  const auto cancelled_at = agents::Clock::now();
  ticket->cancel();
  auto result = ticket->wait_for(2000ms);
  REQUIRE(result);
  CHECK(agents::Clock::now() - cancelled_at < 500ms);
  REQUIRE(result->failure);
  CHECK(result->failure->kind == FailureKind::Cancelled);
  // The stopped search's bestmove is skipped before the next position is sent.
  auto request = start_request("chess", 20000ms);
  auto after = request.game->clone();
  REQUIRE(after->apply("e2e4"));
  request.game = std::move(after);
  request.moves = {"e2e4"};
  auto next = engine->start_move(request);
  std::this_thread::sleep_for(100ms);
  next->cancel();
  CHECK(next->wait().failure->kind == FailureKind::Cancelled);
  std::get<agents::UciAgentConfig>(config.params).movetime = 50ms;
  auto quick = make(config);
  REQUIRE_FALSE(quick->new_game(game_start("chess")));
  CHECK(quick->start_move(request)->wait().ok());
  // Destroying an agent mid-search returns promptly.
  auto busy = engine->start_move(request);
  const auto destroy_at = agents::Clock::now();
  engine.reset();
  CHECK(agents::Clock::now() - destroy_at < 2s);
  CHECK(busy->wait_for(100ms));
}

TEST_CASE("uci agent configuration errors", "[agents][uci]") {
  auto missing = agents::make_uci_agent(uci_config("no-such-engine-xyz"), {});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("not found") != std::string::npos);
  auto not_executable = agents::make_uci_agent(uci_config("/etc/hostname"), {});
  REQUIRE_FALSE(not_executable);
  auto injected = uci_config(agents::test::fake_engine_path());  // refused before the engine starts
  std::get<agents::UciAgentConfig>(injected.params).options["Hash"] = "16\nquit";
  auto injection = agents::make_uci_agent(injected, {});
  REQUIRE_FALSE(injection);
  CHECK(injection.error().message.find("line break") != std::string::npos);
  if (!engine_installed(kStockfish)) return;
  auto config = uci_config(kStockfish);
  std::get<agents::UciAgentConfig>(config.params).options["No Such Option"] = "1";
  auto bad_option = agents::make_uci_agent(config, {});
  REQUIRE_FALSE(bad_option);
  CHECK(bad_option.error().message.find("No Such Option") != std::string::npos);
  auto janggi = uci_config(kStockfish);
  janggi.variants = {"janggi"};
  auto wrong_variant = agents::make_uci_agent(janggi, {});
  REQUIRE_FALSE(wrong_variant);
  CHECK(wrong_variant.error().message.find("does not play janggi") != std::string::npos);
}
