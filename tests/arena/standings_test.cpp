// Standings over a game book: the fastchess table's draw column and undefined error bars, and the
// pool ratings in the text, JSON, Markdown and the standings event.
#include "arena/tournament/standings.h"

#include <catch2/catch.hpp>

using namespace arena::tournament;

namespace {

// Adds game `index` of pair index / 2, `first` against `second`, with `result`.
void add_game(GameBook& book, int32_t index, const std::string& first, const std::string& second,
              const std::string& result) {
  GameStart start;
  start.game = "g" + std::to_string(index + 1);
  start.index = index;
  start.pair = index / 2;
  start.variant = "chess";
  start.first = first;
  start.second = second;
  GameEnd end;
  end.game = start.game;
  end.index = index;
  end.result = result;
  end.reason = "checkmate";
  Event e;
  e.body = start;
  book.apply(e);
  e.body = end;
  book.apply(e);
}

}  // namespace

TEST_CASE("standings: the Draw column is the games' draw rate, not the pairs'", "[arena]") {
  // Ten colour-swapped pairs, each split 1-1 by two wins of the first mover: no game drawn.
  GameBook book;
  for (int32_t i = 0; i < 20; ++i) add_game(book, i, i % 2 ? "b" : "a", i % 2 ? "a" : "b", "1-0");
  const Standings st = compute_standings({"a", "b"}, book, 20, arena::config::SprtConfig{});
  const std::string text = standings_text(st);
  CHECK_THAT(text, Catch::Contains("50.0%       0.0%     [0, 0, 10, 0, 0]"));
  CHECK_THAT(text, Catch::Contains("DrawRatio: 100.00 % of pairs, draws 0.00 % of games"));
  CHECK_THAT(standings_markdown(st), Catch::Contains("| 50.0% | 0.0% |"));
}

TEST_CASE("standings: an undefined error bar prints n/a, not -nan", "[arena]") {
  const std::pair<const char*, const char*> pairs[] = {
      {"1/2-1/2", "1/2-1/2"}, {"1-0", "1-0"}, {"1-0", "0-1"}, {"1-0", "1/2-1/2"}};
  for (const auto& [r1, r2] : pairs) {
    GameBook book;
    add_game(book, 0, "a", "b", r1);
    add_game(book, 1, "b", "a", r2);
    const Standings st = compute_standings({"a", "b"}, book, 2, std::nullopt);
    const std::string text = standings_text(st);
    CHECK_THAT(text, !Catch::Contains("nan"));
    // One pair has no variance: no error bar, no nElo.
    CHECK_THAT(text, Catch::Contains("n/a"));
    CHECK(standings_json(st)["rows"][0]["elo_error"].is_null());
    CHECK_THAT(standings_markdown(st), !Catch::Contains("nan"));
  }
}

TEST_CASE("standings: the pool ratings beside the per-agent statistics", "[arena]") {
  GameBook book;
  const char* results[] = {"1-0", "1/2-1/2", "1-0", "0-1", "1-0", "1/2-1/2"};
  for (int32_t i = 0; i < 6; ++i) add_game(book, i, "a", "b", results[i]);
  add_game(book, 6, "a", "random", "1-0");
  add_game(book, 7, "random", "a", "0-1");
  add_game(book, 8, "b", "random", "1-0");
  add_game(book, 9, "random", "b", "1/2-1/2");
  PoolRatingOptions options;
  options.anchors = {{"random", 0}};
  options.simulations = 100;
  const Standings st = compute_standings({"a", "b", "random"}, book, 10, std::nullopt, options);
  REQUIRE(st.pool);
  CHECK(st.pool->games == 10);
  CHECK(st.pool->players.front().name == "a");
  CHECK_THAT(standings_text(st), Catch::Contains("Ratings over all 10 games"));
  CHECK_THAT(standings_text(st), Catch::Contains("anchored: random = 0"));
  CHECK_THAT(standings_markdown(st), Catch::Contains("## Ratings"));
  const auto json = standings_json(st);
  CHECK(json["ratings"]["players"].size() == 3);
  CHECK(json["ratings"]["players"][0]["name"] == "a");

  const StandingsEvent event = standings_event(st);
  for (const StandingsEntry& e : event.rows) {
    REQUIRE(e.rating.has_value());
    CHECK(e.rating_error.has_value());
    if (e.agent == "random") CHECK(*e.rating == 0);
  }
  nlohmann::json j = event;
  CHECK(j["rows"][0].contains("rating_bound"));
  StandingsEvent back = j.get<StandingsEvent>();
  CHECK(back.rows[0].rating == event.rows[0].rating);

  SECTION("without pool options there are none") {
    const Standings plain = compute_standings({"a", "b", "random"}, book, 10, std::nullopt);
    CHECK_FALSE(plain.pool);
    CHECK_FALSE(standings_json(plain).contains("ratings"));
    CHECK_FALSE(nlohmann::json(standings_event(plain))["rows"][0].contains("rating"));
  }
}
