// The real-browser check of `arena view` (hidden tag [.browser], also [slow]; tests/browser/run.sh
// runs it): two results folders, one finished (written by the run's EventLog) and one whose log a
// thread keeps appending moves to, served by a ViewServer with the installed web assets; headless
// Chromium, driven by tests/browser/check.cjs in its `view` mode, checks the list page, an
// overview and a game growing live, and saves screenshots under <build>/screenshots.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "arena/server/view_server.h"
#include "arena/tournament/event_log.h"
#include "tests/server/event_maker.h"

namespace fs = std::filesystem;
using arena::test::EventMaker;

TEST_CASE("arena view in headless Chromium", "[.browser][server][slow]") {
  const char* script = std::getenv("ARENA_BROWSER_SCRIPT");
  if (!fs::exists("/usr/bin/chromium") || !script ||
      std::system("node -e \"require('playwright-core')\" 2>/dev/null") != 0) {
    WARN("SKIPPED: chromium, playwright-core or ARENA_BROWSER_SCRIPT missing: run tests/browser/run.sh");
    SUCCEED("no browser check here");
    return;
  }
  const fs::path assets = arena::server::find_assets_dir();
  REQUIRE(!assets.empty());
  char tmpl[] = "/tmp/arena-view-browser-XXXXXX";
  const fs::path base = mkdtemp(tmpl);
  const fs::path done = base / "chess-finished", live = base / "janggi-live";
  fs::create_directories(done);
  fs::create_directories(live);

  {  // A finished tournament: two games and their standings, as `arena run` logs them.
    auto log = arena::tournament::EventLog::open(done / "events.jsonl", false, nullptr);
    REQUIRE(log.has_value());
    EventMaker ev;
    std::vector<nlohmann::json> events = {ev.tournament_start(2)};
    for (const char* id : {"g0001", "g0002"}) {
      events.push_back(ev.game_start(id, "chess", id[4] - '1'));
      for (int i = 0; i < 14; ++i) events.push_back(ev.random_move(120));
      events.push_back(ev.game_end("1/2-1/2", "adjudicated draw"));
    }
    events.push_back(ev.standings());
    auto end = ev.base("tournament_end");
    end.update({{"interrupted", false}, {"games_done", 2}});
    events.push_back(end);
    for (const auto& j : events) {
      auto e = arena::test::event(j);
      REQUIRE(log->append(e).has_value());
    }
  }
  // A running tournament: a janggi game whose moves keep coming while the browser looks.
  EventMaker running;
  const fs::path live_log = live / "events.jsonl";
  {
    std::ofstream out(live_log);
    out << running.tournament_start(4).dump() << "\n" << running.game_start("g0001", "janggi").dump() << "\n";
    for (int i = 0; i < 6; ++i) out << running.random_move(120).dump() << "\n";
  }
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop && !running.game().outcome().finished() && !running.game().legal_moves().empty()) {
      std::ofstream(live_log, std::ios::app) << running.random_move(120).dump() << "\n";
      for (int i = 0; i < 10 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });

  arena::config::WebConfig web;
  web.port = 0;
  auto view = arena::server::ViewServer::start(web, assets, {done, live});
  REQUIRE(view.has_value());
  const fs::path out = fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "screenshots";
  const std::string command =
      fmt::format("node '{}' '{}' '{}' view", script, (*view)->server().url(), out.string());
  const int rc = std::system(command.c_str());
  stop = true;
  writer.join();
  view->reset();
  std::error_code ec;
  fs::remove_all(base, ec);
  CHECK(rc == 0);
  for (const char* shot : {"view-list.png", "view-overview.png", "view-game.png"})
    CHECK(fs::exists(out / shot));
}
