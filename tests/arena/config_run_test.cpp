// configs/test_tiny.yaml end to end through the same path as `arena run`: the loader, the model
// registry (a real test model on the in-process engine), agents::make_agent for the search,
// random and LLM participants, and run_tournament. Checked: every scheduled game finishes, the
// event log holds one game_end per game and a tournament_start with the config's hash, every
// chess game passes pgn-extract, and the standings add up.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "arena/cli/process_env.h"
#include "arena/config/loader.h"
#include "arena/config/resolved.h"
#include "arena/models/run_setup.h"
#include "tests/arena/config_test_paths.h"
#include "tests/common/testdata.h"

using namespace arena;

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The games of a PGN file, one string each (a game starts at its [Event tag).
std::vector<std::string> pgn_games(const std::string& pgn) {
  std::vector<std::string> games;
  for (size_t at = pgn.find("[Event "); at != std::string::npos;) {
    const size_t next = pgn.find("\n[Event ", at + 1);
    games.push_back(pgn.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
    at = next == std::string::npos ? next : next + 1;
  }
  return games;
}

}  // namespace

TEST_CASE("configs/test_tiny.yaml plays every game through the arena run path", "[arena][slow]") {
  const auto source = arena::test::source_dir();
  REQUIRE(source);
  ARENA_REQUIRE_TESTDATA(model, "models/qwen2-bpe-tied-f32.gguf");
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("arena_config_run_" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);

  config::LoadOptions options;
  const std::string testdata = arena::test::testdata_dir()->string();
  options.get_env = [testdata](const std::string& name) -> std::optional<std::string> {
    if (name == "ARENA_TESTDATA") return testdata;
    return arena::cli::process_env(name);
  };
  options.overrides.output_dir = out.string();
  auto config = config::load_config(*source / "configs" / "test_tiny.yaml", options);
  INFO((config ? std::string() : config::format_diagnostics(config.error())));
  REQUIRE(config);
  REQUIRE(models::models_in_use(*config).size() == 1);

  auto setup = models::prepare_run(*config, options.get_env);
  INFO((setup ? std::string() : setup.error()));
  REQUIRE(setup);
  REQUIRE((*setup)->participants.size() == 3);
  tournament::RunOptions run;
  run.output_dir = out;
  run.config_hash = config::config_hash(*config);
  run.quiet = true;
  const auto summary = tournament::run_tournament(config->tournament, std::move((*setup)->participants),
                                                  std::move((*setup)->engines), run);
  INFO((summary ? std::string() : summary.error()));
  REQUIRE(summary);
  // 3 pairings x 2 games x 2 variants.
  CHECK(summary->games_total == 12);
  CHECK(summary->games_done == 12);
  CHECK_FALSE(summary->interrupted);

  // The event log: the hash, one end per game, and the LLM really played through the engine.
  int ends = 0, llm_moves = 0;
  std::ifstream events(out / "events.jsonl");
  for (std::string line; std::getline(events, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e["type"] == "tournament_start") CHECK(e["config_hash"] == run.config_hash);
    if (e["type"] == "game_end") {
      ++ends;
      CHECK(e["result"] != "*");
    }
    if (e["type"] == "move" && e["agent"] == "llm" && e["failure"].is_null()) {
      ++llm_moves;
      CHECK(e["prompt_tokens"].get<int>() > 0);
    }
  }
  CHECK(ends == 12);
  CHECK(llm_moves > 0);

  // Chess games through pgn-extract; janggi games tagged as such.
  const auto games = pgn_games(read_text(out / "games.pgn"));
  REQUIRE(games.size() == 12);
  std::string chess;
  int janggi = 0;
  for (const auto& g : games) {
    if (g.find("[Variant \"Janggi\"]") != std::string::npos)
      ++janggi;
    else
      chess += g + "\n";
  }
  CHECK(janggi == 6);
  for (const char* bin : {"/usr/bin/pgn-extract", "/usr/games/pgn-extract"}) {
    if (!std::filesystem::exists(bin)) continue;
    std::ofstream(out / "chess.pgn") << chess;
    const std::string cmd = std::string(bin) + " -r -s " + (out / "chess.pgn").string() + " 2>&1";
    std::FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string complaints;
    char buf[512];
    while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) complaints.append(buf, n);
    ::pclose(pipe);
    CHECK(complaints == "");
    break;
  }

  // Standings: every agent played 8 games (2 opponents x 2 variants x 2), points add up.
  const auto standings = nlohmann::json::parse(read_text(out / "standings.json"));
  INFO(standings.dump(2));
  REQUIRE(standings.contains("rows"));
  double points = 0;
  for (const auto& a : standings["rows"]) {
    CHECK(a["games"] == 8);
    points += a["points"].get<double>();
  }
  CHECK(points == Approx(12.0));
  std::filesystem::remove_all(out);
}
