// `arena bench perft`: nodes per second of arena's perft (chess start position depth 5, janggi
// start position depth 4) and, in the same run, of the reference engines' `go perft` on the
// same FEN: Stockfish for chess, Fairy-Stockfish (UCI_Variant janggi) for janggi. An engine is
// timed from sending `go perft` to reading its "Nodes searched" line; arena and engine runs
// alternate and each figure is the best of --repeat runs. A missing engine binary gives a
// "not installed" row, never a failure. Every wait on an engine has a deadline: the handshake
// gets --engine-timeout seconds, a `go perft` that plus 50 times arena's own time for it, and
// an engine that never answers (`--stockfish /bin/cat`), floods lines (`/usr/bin/yes`) or never
// ends a line is reported in its row, then killed.
#include "arena/cli/bench_perft.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/uci/uci_process.h"
#include "games/game.h"

namespace arena::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchFlags {
  int repeat = 3;
  int chess_depth = 5;
  int janggi_depth = 4;
  std::string stockfish = "/usr/games/stockfish";
  std::string fairy_stockfish = "/usr/games/fairy-stockfish";
  double engine_timeout = 10;  // seconds for the handshake; a perft gets more (see time_engine)
  bool json = false;
};

using agents::uci::UciProcess;
using Read = UciProcess::Read;

// One row of the table: an implementation's perft on one position.
struct Measurement {
  std::string engine;  // "arena", or the engine's `id name`
  std::string status;  // empty when measured; otherwise why not ("not installed", ...)
  uint64_t nodes = 0;
  double seconds = 0;

  double mnps() const { return seconds > 0 ? double(nodes) / seconds / 1e6 : 0; }
};

// Times one arena perft run into `m`, keeping the fastest.
void time_arena(const games::Game& game, int depth, Measurement& m) {
  const auto start = Clock::now();
  m.nodes = game.perft(depth);
  m.seconds = std::min(m.seconds, std::chrono::duration<double>(Clock::now() - start).count());
}

// Starts the reference engine at `path` set up for `variant` ("" for chess) at `fen`, allowing
// `timeout` for each of its answers to `uci` and `isready`; on failure returns nullptr and sets
// m.status.
std::unique_ptr<UciProcess> open_engine(const std::string& path, const std::string& variant,
                                        const std::string& fen, Clock::duration timeout, Measurement& m) {
  if (access(path.c_str(), X_OK) != 0) return m.status = "not installed", nullptr;
  auto engine = UciProcess::start(path, {});
  if (!engine) return m.status = engine.error(), nullptr;
  auto& e = **engine;
  e.send("uci");
  const auto uci_deadline = Clock::now() + timeout;
  std::string line;
  while (e.read_line(line, uci_deadline) == Read::Line && line != "uciok")
    if (line.starts_with("id name ")) m.engine = line.substr(8, 60);
  if (line != "uciok") return m.status = "engine did not answer 'uci' with 'uciok'", nullptr;
  e.send("setoption name Threads value 1");
  if (!variant.empty()) e.send("setoption name UCI_Variant value " + variant);
  e.send("isready");
  if (e.read_until("readyok", line, Clock::now() + timeout) != Read::Line)
    return m.status = "engine did not answer 'isready' with 'readyok'", nullptr;
  e.send("position fen " + fen);
  return std::move(*engine);
}

// Times one `go perft` of the engine into `m`, keeping the fastest; false (with m.status) on
// failure. The engine gets `timeout` plus 50 times what arena took for the same count.
bool time_engine(UciProcess& e, int depth, Clock::duration timeout, double arena_seconds, Measurement& m) {
  const auto start = Clock::now();
  e.send(fmt::format("go perft {}", depth));
  const auto deadline =
      start + timeout +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(50 * arena_seconds));
  std::string line;
  if (e.read_until("Nodes searched", line, deadline) != Read::Line)
    return m.status = "engine gave no 'Nodes searched' line in time", false;
  m.seconds = std::min(m.seconds, std::chrono::duration<double>(Clock::now() - start).count());
  m.nodes = std::strtoull(line.c_str() + line.find(':') + 1, nullptr, 10);
  return true;
}

// One benchmark position: arena against its reference.
struct BenchCase {
  std::string game;
  int depth = 0;
  std::string fen;
  Measurement arena;
  Measurement reference;
  std::string skipped;  // why arena could not run this case
};

BenchCase run_case(const std::string& variant, int depth, const std::string& engine_path, int repeat,
                   Clock::duration timeout) {
  BenchCase c{variant, depth, "", {}, {}, ""};
  auto game = games::make_game(variant);
  if (!game) return c.skipped = game.error().message, c;
  c.fen = (*game)->fen();
  c.arena = {"arena", "", 0, 1e30};
  c.reference = {engine_path, "", 0, 1e30};
  auto engine = open_engine(engine_path, variant == "chess" ? "" : variant, c.fen, timeout, c.reference);
  // Alternate the two so that a change in machine load affects both alike.
  for (int i = 0; i < repeat; ++i) {
    time_arena(**game, depth, c.arena);
    if (engine && !time_engine(*engine, depth, timeout, c.arena.seconds, c.reference)) engine.reset();
  }
  return c;
}

bool measured(const BenchCase& c) {
  return c.skipped.empty() && c.reference.status.empty();
}

void print_table(const std::vector<BenchCase>& cases, int repeat) {
  fmt::print("Perft speed, start positions, single thread, best of {} run{}\n\n", repeat,
             repeat == 1 ? "" : "s");
  fmt::print("{:<7} {:>5}  {:<28} {:>11} {:>9} {:>8} {:>10}\n", "game", "depth", "engine", "nodes", "seconds",
             "Mnps", "arena/ref");
  for (const auto& c : cases) {
    if (!c.skipped.empty()) {
      fmt::print("{:<7} {:>5}  skipped: {}\n", c.game, c.depth, c.skipped);
      continue;
    }
    for (const Measurement* m : {&c.arena, &c.reference}) {
      if (!m->status.empty()) {
        fmt::print("{:<7} {:>5}  {:<28} {}\n", c.game, c.depth, m->engine, m->status);
        continue;
      }
      std::string ratio;
      if (m == &c.reference) ratio = fmt::format("{:.2f}", c.arena.mnps() / m->mnps());
      fmt::print("{:<7} {:>5}  {:<28} {:>11} {:>9.4f} {:>8.1f} {:>10}\n", c.game, c.depth, m->engine,
                 m->nodes, m->seconds, m->mnps(), ratio);
    }
    if (measured(c) && c.arena.nodes != c.reference.nodes)
      fmt::print("warning: {} node counts differ: arena {}, reference {}\n", c.game, c.arena.nodes,
                 c.reference.nodes);
  }
}

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json j{{"engine", m.engine}};
  if (!m.status.empty()) {
    j["status"] = m.status;
    return j;
  }
  j["nodes"] = m.nodes;
  j["seconds"] = m.seconds;
  j["mnps"] = m.mnps();
  return j;
}

void print_json(const std::vector<BenchCase>& cases, int repeat) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json j{{"game", c.game}, {"depth", c.depth}};
    if (!c.skipped.empty()) {
      j["skipped"] = c.skipped;
    } else {
      j["fen"] = c.fen;
      j["arena"] = to_json(c.arena);
      j["reference"] = to_json(c.reference);
      j["ratio"] =
          measured(c) ? nlohmann::json(c.arena.mnps() / c.reference.mnps()) : nlohmann::json(nullptr);
      if (measured(c)) j["nodes_match"] = c.arena.nodes == c.reference.nodes;
    }
    results.push_back(j);
  }
  fmt::print("{}\n",
             nlohmann::json{{"benchmark", "perft"}, {"repeat", repeat}, {"results", results}}.dump(2));
}

int run(const BenchFlags& f) {
  std::vector<BenchCase> cases;
  const auto timeout =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(f.engine_timeout));
  cases.push_back(run_case("chess", f.chess_depth, f.stockfish, f.repeat, timeout));
  cases.push_back(run_case("janggi", f.janggi_depth, f.fairy_stockfish, f.repeat, timeout));
  if (f.json)
    print_json(cases, f.repeat);
  else
    print_table(cases, f.repeat);
  return 0;
}

}  // namespace

void add_bench_perft(CLI::App& bench, Action& action) {
  auto flags = std::make_shared<BenchFlags>();
  auto* cmd = bench.add_subcommand("perft", "Perft nodes per second of arena vs Stockfish / Fairy-Stockfish");
  cmd->add_option("--repeat", flags->repeat, "Runs per measurement; the fastest counts")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--chess-depth", flags->chess_depth, "Depth for chess")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  cmd->add_option("--janggi-depth", flags->janggi_depth, "Depth for janggi")
      ->check(CLI::Range(1, 7))
      ->capture_default_str();
  cmd->add_option("--stockfish", flags->stockfish, "Stockfish binary")->capture_default_str();
  cmd->add_option("--fairy-stockfish", flags->fairy_stockfish, "Fairy-Stockfish binary")
      ->capture_default_str();
  cmd->add_option("--engine-timeout", flags->engine_timeout,
                  "Seconds a reference engine gets to answer 'uci' and 'isready' (a perft gets this plus 50x "
                  "arena's time)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--json", flags->json, "Print one JSON object instead of a table");
  cmd->callback([flags, &action] { action = [flags] { return run(*flags); }; });
}

}  // namespace arena::cli
