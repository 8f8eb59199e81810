// The real-browser check (hidden tag [.browser], also [slow]; tests/browser/run.sh runs it): a board server
// with the installed web assets, three real games (random legal moves) in flight and a real
// engine on a test model working in the background for the dashboard, every move scored as by an
// adjudication referee (a made-up score curve with a blunder, and a legal best move) for the game
// page's evaluation graph, judgments and arrow; headless Chromium, driven by
// tests/browser/check.cjs, checks the DOM and saves screenshots under <build>/screenshots.
// Skipped where chromium or playwright-core is missing.
#include <fmt/format.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "arena/server/board_server.h"
#include "engine/api.h"
#include "tests/common/testdata.h"
#include "tests/server/event_maker.h"

namespace fs = std::filesystem;

namespace {

// A move of `g` as a tournament with a referee logs it: the score from the mover's view on a
// made-up curve (the first side a little better, then its blunder at ply 5: about 0.55 of winning
// chances lost) and the first legal move of the new position as the referee's best.
nlohmann::json refereed(arena::test::EventMaker& g, nlohmann::json move) {
  const int ply = move["ply"].get<int>();
  const int first_view = ply < 5 ? 20 + 10 * (ply % 3) : -300 - 10 * (ply % 4);
  move["referee_cp"] = move["side"] == "first" ? first_view : -first_view;
  const auto legal = g.game().legal_moves();
  move["referee_best"] = legal.empty() ? nlohmann::json() : nlohmann::json(legal.front());
  return move;
}

// The standings event of `g` with each row's move quality, as with a referee.
nlohmann::json refereed_standings(arena::test::EventMaker& g) {
  nlohmann::json e = g.standings();
  for (auto& row : e["rows"])
    row.update({{"acpl", 61.5}, {"accuracy", 72.25}, {"inaccuracies", 1}, {"mistakes", 0}, {"blunders", 1}});
  return e;
}

}  // namespace

TEST_CASE("the board view in headless Chromium", "[.browser][server][slow]") {
  if (!fs::exists("/usr/bin/chromium")) {
    WARN("SKIPPED: /usr/bin/chromium is not installed (apt-get install chromium)");
    SUCCEED("no browser here: the check runs only where chromium is installed");
    return;
  }
  if (std::system("node -e \"require('playwright-core')\" 2>/dev/null") != 0) {
    WARN("SKIPPED: playwright-core is not found by node (tests/browser/run.sh installs it; NODE_PATH)");
    SUCCEED("no playwright-core here: run tests/browser/run.sh");
    return;
  }
  ARENA_REQUIRE_TESTDATA(model_path, "models/llama-spm-gqa-q8_0.gguf");
  const fs::path assets = arena::server::find_assets_dir();
  REQUIRE(!assets.empty());
  const fs::path exe = fs::read_symlink("/proc/self/exe");
  const fs::path build = exe.parent_path().parent_path();
  const fs::path out = build / "screenshots";
  const char* script_env = std::getenv("ARENA_BROWSER_SCRIPT");
  if (!script_env) {
    WARN("SKIPPED: ARENA_BROWSER_SCRIPT (tests/browser/check.cjs) is not set; run tests/browser/run.sh");
    SUCCEED("not started by tests/browser/run.sh");
    return;
  }
  const fs::path script = script_env;

  auto model = engine::LoadedModel::open(model_path.string(), engine::ModelOptions{1, "chatml"});
  REQUIRE(model.has_value());
  engine::EngineConfig config;
  config.cache.kv_cache_bytes = 8 << 20;
  auto engine = (*model)->create_engine(config);
  REQUIRE(engine.has_value());

  arena::config::WebConfig web;
  web.port = 0;
  arena::server::ServerOptions options;
  options.metrics_interval = std::chrono::milliseconds(250);
  auto server = arena::server::BoardServer::start(web, assets, {{"llama-test", engine->get()}}, options);
  REQUIRE(server.has_value());
  auto* obs = (*server)->observer();

  // The tournament: one finished game, three in flight.
  arena::test::EventMaker done, g1, g2, g3;
  obs->on_event(arena::test::event(done.tournament_start(8)));
  obs->on_event(arena::test::event(done.game_start("g0001", "chess", 0)));
  for (int i = 0; i < 12; ++i) obs->on_event(arena::test::event(refereed(done, done.random_move(120))));
  obs->on_event(arena::test::event(done.game_end("1/2-1/2", "adjudicated draw")));
  obs->on_event(arena::test::event(refereed_standings(done)));
  obs->on_event(arena::test::event(g1.game_start("g0002", "chess", 1)));
  obs->on_event(arena::test::event(g2.game_start("g0003", "janggi", 2)));
  obs->on_event(arena::test::event(g3.game_start("g0004", "chess", 3)));
  for (int i = 0; i < 9; ++i)
    for (auto* g : {&g1, &g2, &g3}) obs->on_event(arena::test::event(refereed(*g, g->random_move(120))));

  std::atomic<bool> stop{false};
  // Moves keep coming, and the engine keeps working, while the browser looks.
  std::thread players([&] {
    while (!stop) {
      for (auto* g : {&g1, &g2, &g3})
        if (!g->game().outcome().finished() && !g->game().legal_moves().empty())
          obs->on_event(arena::test::event(refereed(*g, g->random_move(120))));
      for (int i = 0; i < 15 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  std::thread load([&] {
    int n = 0;
    while (!stop) {
      engine::GenerateRequest r;
      r.prompt = fmt::format(
          "System prompt shared by every agent of the tournament, long enough to fill blocks. "
          "Agent {} asks for a move in position {}.",
          n % 4, n);
      r.sampling.max_tokens = 12;
      r.sampling.ignore_eos = true;
      ++n;
      if (auto h = (*engine)->submit(std::move(r))) h->wait();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const std::string command =
      fmt::format("node '{}' '{}' '{}'", script.string(), (*server)->url(), out.string());
  const int rc = std::system(command.c_str());
  stop = true;
  players.join();
  load.join();
  CHECK(rc == 0);
  for (const char* shot : {"overview.png", "game-chess.png", "game-janggi.png", "dashboard.png"})
    CHECK(fs::exists(out / shot));
}
