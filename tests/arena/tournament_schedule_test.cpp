// The schedule: pairings per format, colour balance, colour-swapped pairs sharing an opening,
// openings from EPD / PGN files and the 16 janggi setups, and seeded (reproducible) shuffling.
#include <fmt/core.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "arena/tournament/schedule.h"

using namespace arena;
using namespace arena::tournament;
namespace fs = std::filesystem;

namespace {

std::vector<SchedulePlayer> players(int n, std::vector<std::string> variants = {"chess"}) {
  std::vector<SchedulePlayer> out;
  for (int i = 0; i < n; ++i) {
    SchedulePlayer p;
    p.name = fmt::format("p{}", i);
    p.variants = variants;
    out.push_back(std::move(p));
  }
  return out;
}

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / (name + std::to_string(::getpid()));
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST_CASE("round robin: every pair, colours balanced, pairs share an opening", "[arena]") {
  config::TournamentConfig c;
  c.games_per_pairing = 4;
  auto s = make_schedule(c, players(4));
  REQUIRE(s.has_value());
  CHECK(s->size() == 6 * 4);
  std::map<int, int> first, played;
  std::map<std::pair<int, int>, int> per_pair;
  for (const auto& g : *s) {
    ++first[g.first];
    ++played[g.first];
    ++played[g.second];
    ++per_pair[{std::min(g.first, g.second), std::max(g.first, g.second)}];
    CHECK(g.pair >= 0);
  }
  for (int p = 0; p < 4; ++p) {
    CHECK(played[p] == 12);
    CHECK(first[p] == 6);
  }
  for (const auto& [pair, n] : per_pair) CHECK(n == 4);
  // Games 2k and 2k+1: the same pairing and opening with colours swapped.
  for (size_t i = 0; i + 1 < s->size(); i += 2) {
    CHECK((*s)[i].pair == (*s)[i + 1].pair);
    CHECK((*s)[i].first == (*s)[i + 1].second);
    CHECK((*s)[i].start_fen == (*s)[i + 1].start_fen);
    CHECK((*s)[i].index == int32_t(i));
  }
}

TEST_CASE("double round robin and gauntlet", "[arena]") {
  config::TournamentConfig c;
  c.games_per_pairing = 2;
  c.format = config::Format::DoubleRoundRobin;
  auto s = make_schedule(c, players(3));
  REQUIRE(s.has_value());
  CHECK(s->size() == 12);
  c.format = config::Format::Gauntlet;
  c.gauntlet_seed_agent = "p2";
  s = make_schedule(c, players(4));
  REQUIRE(s.has_value());
  CHECK(s->size() == 6);
  for (const auto& g : *s) CHECK((g.first == 2 || g.second == 2));
  c.gauntlet_seed_agent = "nobody";
  CHECK_FALSE(make_schedule(c, players(4)).has_value());
}

TEST_CASE("odd games per pairing: the last game is unpaired and colours alternate", "[arena]") {
  config::TournamentConfig c;
  c.games_per_pairing = 3;
  auto s = make_schedule(c, players(2));
  REQUIRE(s.has_value());
  REQUIRE(s->size() == 3);
  CHECK((*s)[2].pair == -1);
  CHECK((*s)[2].first == 1);  // the third game's round starts with the other player
}

TEST_CASE("variants: each played by the players that can", "[arena]") {
  config::TournamentConfig c;
  c.games = {"chess", "janggi"};
  c.games_per_pairing = 2;
  auto ps = players(3, {"chess", "janggi"});
  ps[2].variants = {"chess"};
  auto s = make_schedule(c, ps);
  REQUIRE(s.has_value());
  int janggi = 0;
  for (const auto& g : *s)
    if (g.variant == "janggi") {
      ++janggi;
      CHECK(g.first != 2);
      CHECK(g.second != 2);
    }
  CHECK(janggi == 2);
  CHECK(s->size() == 8);
  ps[0].variants = {"chess"};
  CHECK_FALSE(make_schedule(c, ps).has_value());  // nobody left to play janggi against p1
}

TEST_CASE("janggi setups: 16 distinct starting positions, named", "[arena]") {
  const auto setups = janggi_setup_openings("janggi");
  REQUIRE(setups.size() == 16);
  std::set<std::string> fens;
  for (const auto& o : setups) {
    fens.insert(o.fen);
    CHECK(o.label.find("Cho ") == 0);
  }
  CHECK(fens.size() == 16);
  config::TournamentConfig c;
  c.games = {"janggi"};
  c.games_per_pairing = 32;
  c.openings.janggi_setups = true;
  auto s = make_schedule(c, players(2, {"janggi"}));
  REQUIRE(s.has_value());
  std::set<std::string> used;
  for (const auto& g : *s) used.insert(g.start_fen);
  CHECK(used.size() == 16);
}

TEST_CASE("openings from EPD and PGN files, in order or shuffled by the seed", "[arena]") {
  const fs::path epd = write_temp("openings.epd",
                                  "# comment\n"
                                  "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n"
                                  "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n"
                                  "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq -\n");
  config::OpeningsConfig o;
  o.file = epd.string();
  auto list = load_openings(o, "chess");
  REQUIRE(list.has_value());
  REQUIRE(list->size() == 3);
  CHECK((*list)[0].label == "e4");
  config::TournamentConfig c;
  c.games_per_pairing = 12;
  c.openings = o;
  auto s = make_schedule(c, players(2));
  REQUIRE(s.has_value());
  CHECK((*s)[0].start_fen == (*list)[0].fen);
  CHECK((*s)[2].start_fen == (*list)[1].fen);
  CHECK((*s)[4].start_fen == (*list)[2].fen);
  CHECK((*s)[6].start_fen == (*list)[0].fen);
  c.openings.order = config::OpeningOrder::Random;
  auto r1 = make_schedule(c, players(2));
  auto r2 = make_schedule(c, players(2));
  REQUIRE(r1.has_value());
  std::vector<std::string> a, b, d;
  for (const auto& g : *r1) a.push_back(g.start_fen);
  for (const auto& g : *r2) b.push_back(g.start_fen);
  CHECK(a == b);  // the same seed, the same order
  std::set<std::string> cycle(a.begin(), a.begin() + 6);
  CHECK(cycle.size() == 3);  // every opening once per cycle
  bool differs = false;
  for (uint64_t seed = 2; seed < 12 && !differs; ++seed) {
    c.seed = seed;
    auto r3 = make_schedule(c, players(2));
    d.clear();
    for (const auto& g : *r3) d.push_back(g.start_fen);
    differs = d != a;
  }
  CHECK(differs);

  const fs::path bad =
      write_temp("bad.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnot a fen\n");
  o.file = bad.string();
  auto err = load_openings(o, "chess");
  REQUIRE_FALSE(err.has_value());
  CHECK(err.error().find(bad.string() + ":2:") == 0);

  const fs::path pgn = write_temp(
      "book.pgn", "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n[Event \"b\"]\n\n1. d4 d5 *\n");
  o.file = pgn.string();
  o.plies = 3;
  auto book = load_openings(o, "chess");
  REQUIRE(book.has_value());
  REQUIRE(book->size() == 2);
  CHECK((*book)[0].label == "1. e4 e5 2. Nf3");
  CHECK((*book)[0].fen == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
  CHECK((*book)[1].label == "1. d4 d5");
  // A tournament of both games: the PGN's chess openings are not for janggi, whose games start
  // from the start position, or from the 16 setups when asked.
  auto janggi = load_openings(o, "janggi");
  REQUIRE(janggi.has_value());
  CHECK(janggi->empty());
  o.janggi_setups = true;
  janggi = load_openings(o, "janggimodern");
  REQUIRE(janggi.has_value());
  CHECK(janggi->size() == 16);
  CHECK(load_openings(o, "chess")->size() == 2);
  fs::remove(epd);
  fs::remove(bad);
  fs::remove(pgn);
}
