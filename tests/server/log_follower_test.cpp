// LogFollower (arena view's reader of a growing event log): complete lines only, a torn last line
// kept for later, a log replaced or cut read again from its start, damaged lines reported with
// file:line and skipped, unknown event types skipped; and view_names' folder names and slugs.
#include "arena/tournament/log_follower.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "arena/server/view_router.h"
#include "tests/server/event_maker.h"

namespace fs = std::filesystem;
using arena::test::EventMaker;
using arena::tournament::LogFollower;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/arena-follow-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void append(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::app | std::ios::binary) << text;
}

std::string line(const nlohmann::json& j) {
  return j.dump() + "\n";
}

// The events as lines, made in order (a braced list is evaluated left to right; `a + b` is not).
std::string lines(std::initializer_list<nlohmann::json> events) {
  std::string out;
  for (const auto& j : events) out += line(j);
  return out;
}

}  // namespace

TEST_CASE("a growing log is read in complete lines; a torn last line waits for its end", "[server][view]") {
  TempDir dir;
  const fs::path log = dir.path / "events.jsonl";
  LogFollower follower(log);
  CHECK(follower.poll().missing);

  EventMaker ev;
  append(log, lines({ev.tournament_start(2), ev.game_start("g0001", "chess")}));
  auto batch = follower.poll();
  CHECK_FALSE(batch.restarted);
  REQUIRE(batch.events.size() == 2);
  CHECK(std::holds_alternative<arena::tournament::TournamentStart>(batch.events[0].body));
  CHECK(follower.poll().events.empty());

  // A move written in two parts: nothing until its newline comes.
  const std::string move = line(ev.random_move());
  append(log, move.substr(0, move.size() / 2));
  batch = follower.poll();
  CHECK(batch.events.empty());
  CHECK(batch.errors.empty());
  append(log, move.substr(move.size() / 2));
  batch = follower.poll();
  REQUIRE(batch.events.size() == 1);
  CHECK(std::get<arena::tournament::MoveEvent>(batch.events[0].body).ply == 1);
  CHECK(follower.lines() == 3);
  CHECK(follower.offset() == fs::file_size(log));

  // An event type this build does not know is skipped; a damaged complete line is an error
  // naming the file and line, and reading goes on after it.
  append(log, R"({"type":"future_thing","seq":99,"time":1})"
              "\n"
              "{not json\n" +
                  line(ev.game_end()));
  batch = follower.poll();
  REQUIRE(batch.events.size() == 1);
  CHECK(std::holds_alternative<arena::tournament::GameEnd>(batch.events[0].body));
  REQUIRE(batch.errors.size() == 1);
  CHECK(batch.errors[0] == log.string() + ":5: not a JSON event");
  // A field of the wrong type is an error too.
  append(log, R"({"type":"game_end","game":7,"time":1})"
              "\n");
  batch = follower.poll();
  REQUIRE(batch.errors.size() == 1);
  CHECK(batch.errors[0].starts_with(log.string() + ":7: "));
}

TEST_CASE("a log replaced by a new run, or cut, is read again from its start", "[server][view]") {
  TempDir dir;
  const fs::path log = dir.path / "events.jsonl";
  EventMaker first;
  append(log, lines({first.tournament_start(2), first.game_start("g0001", "chess"), first.random_move()}));
  LogFollower follower(log);
  REQUIRE(follower.poll().events.size() == 3);

  SECTION("removed and written anew, longer than before") {
    fs::remove(log);
    CHECK(follower.poll().missing);
    EventMaker second;
    second.base("skip");  // another seq and time: another run
    append(log, lines({second.tournament_start(4), second.game_start("g0001", "janggi"), second.random_move(),
                       second.random_move()}));
    auto batch = follower.poll();
    CHECK(batch.restarted);
    REQUIRE(batch.events.size() == 4);
    CHECK(std::get<arena::tournament::TournamentStart>(batch.events[0].body).num_games == 4);
    CHECK_FALSE(follower.poll().restarted);
  }
  SECTION("cut below what was read") {
    fs::resize_file(log, 10);
    auto batch = follower.poll();
    CHECK(batch.restarted);
    CHECK(batch.events.empty());  // the 10 bytes left are a torn line
    CHECK(follower.offset() == 0);
  }
  SECTION("rewritten in place with another first line") {
    EventMaker second;
    second.base("skip");
    std::ofstream(log, std::ios::trunc)
        << line(second.tournament_start(8)) << line(second.game_start("g0001", "chess"))
        << line(second.random_move()) << line(second.random_move());
    auto batch = follower.poll();
    CHECK(batch.restarted);
    REQUIRE(batch.events.size() == 4);
  }
}

TEST_CASE("view names: the folder's own name, a URL-safe slug, duplicates numbered", "[server][view]") {
  const auto names = arena::server::view_names({"runs/a/out", "other/out/", "my run (2)", "."});
  REQUIRE(names.size() == 4);
  CHECK(names[0].name == "out");
  CHECK(names[0].slug == "out");
  CHECK(names[1].name == "out");
  CHECK(names[1].slug == "out-2");
  CHECK(names[2].name == "my run (2)");
  CHECK(names[2].slug == "my-run--2-");
  CHECK(names[3].name == fs::current_path().filename().string());
}
