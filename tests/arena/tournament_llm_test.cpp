// A tournament with an LLM agent on a real (random-weight) test model through the in-process
// engine: the engine's metrics reach metrics.csv and the observers, the LLM's moves carry their
// token counts, and the standings show its tokens per move and prefix hit rate.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "agents/agent_config.h"
#include "arena/tournament/runner.h"
#include "engine/api.h"
#include "tests/arena/tournament_test_files.h"
#include "tests/common/testdata.h"

namespace fs = std::filesystem;
using namespace arena;
using namespace arena::tournament;

TEST_CASE("an LLM agent through the engine: metrics.csv, metrics events, token counts", "[arena]") {
  ARENA_REQUIRE_TESTDATA(model_path, "models/qwen2-bpe-tied-f32.gguf");
  auto model = engine::LoadedModel::open(model_path.string(), engine::ModelOptions{1, "chatml"});
  REQUIRE(model.has_value());
  engine::EngineConfig ec;
  ec.cache.kv_cache_bytes = size_t(64) << 20;
  auto eng = (*model)->create_engine(ec);
  REQUIRE(eng.has_value());
  agents::ModelBinding binding{"tiny", model->get(), eng->get()};
  agents::AgentEnvironment env;
  env.find_model = [&](const std::string& name) { return name == "tiny" ? &binding : nullptr; };
  env.get_env = [](const std::string&) { return std::nullopt; };
  agents::LlmAgentConfig llm;
  llm.model = "tiny";
  llm.sampling.seed = 3;
  llm.sampling.temperature = 1.0f;
  std::vector<Participant> players;
  for (agents::AgentConfig c : {agents::AgentConfig{"llm", {}, llm},
                                agents::AgentConfig{"random", {}, agents::RandomAgentConfig{4}}}) {
    Participant p;
    p.name = c.name;
    p.make = [c, &env]() { return agents::make_agent(c, env); };
    players.push_back(std::move(p));
  }
  config::TournamentConfig t;
  t.games = {"chess"};
  t.games_per_pairing = 2;
  t.concurrency = 2;
  t.tick = std::chrono::milliseconds(20);
  t.move_deadline = std::chrono::milliseconds(30000);
  t.adjudication.max_plies = 12;
  const fs::path dir = fs::temp_directory_path() / ("arena_tourney_llm_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  arena::test::RecordingObserver recorder;
  RunOptions o;
  o.output_dir = dir;
  o.quiet = true;
  o.observer = &recorder;
  auto summary = run_tournament(t, players, {EngineSource{"tiny", eng->get()}}, o);
  REQUIRE(summary.has_value());
  CHECK(summary->games_done == 2);

  int llm_moves = 0, metrics_events = 0;
  for (const auto& e : recorder.events) {
    if (e["type"] == "move" && e["agent"] == "llm") {
      ++llm_moves;
      CHECK(e["prompt_tokens"].get<int>() > 0);
      CHECK(e["completion_tokens"].get<int>() > 0);
    }
    if (e["type"] == "metrics") {
      ++metrics_events;
      CHECK(e["model"] == "tiny");
      CHECK(e["kv_total"].get<int>() > 0);
    }
    if (e["type"] == "tournament_start") CHECK(e["models"] == nlohmann::json::array({"tiny"}));
  }
  CHECK(llm_moves >= 10);
  CHECK(metrics_events >= 1);
  std::ifstream csv(dir / "metrics.csv");
  std::string header, line;
  std::getline(csv, header);
  CHECK(header.find("ttft_p50_s") != std::string::npos);
  bool batched = false;
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    CHECK(line.find(",tiny,") != std::string::npos);
    std::stringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 19);
    batched = batched || std::stod(f[5]) > 0;
  }
  CHECK(rows > 5);
  CHECK(batched);
  std::ifstream sj(dir / "standings.json");
  const auto standings = nlohmann::json::parse(sj);
  for (const auto& r : standings["rows"])
    if (r["agent"] == "llm") {
      CHECK(r["tokens_per_move"].get<double>() > 0);
      CHECK(r["prefix_hit_rate"].get<double>() > 0);
    }
  fs::remove_all(dir);
}
