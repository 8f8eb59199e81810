// The config loader on valid configs: every section read into the typed structs, defaults
// filled in, paths and prompts resolved against the config's folder, ${VAR} expansion,
// overrides, and the resolved config that loads back to the same Config with the same hash.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "arena/config/loader.h"
#include "arena/config/resolved.h"

using namespace arena::config;
using std::chrono::milliseconds;

namespace {

// A scratch folder with a fake model file and a prompt file (the loader only checks that files exist).
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    dir = std::filesystem::temp_directory_path() / ("arena_config_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "prompts");
    std::ofstream(dir / "tiny.gguf") << "not really a model";
    std::ofstream(dir / "prompts" / "system.txt") << "You are a careful chess player.\n";
    std::ofstream(dir / "openings.epd") << "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n";
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

LoadOptions options_for(const Scratch& s) {
  LoadOptions o;
  o.default_model_path = s.file("tiny.gguf");
  o.get_env = [dir = s.dir.string()](const std::string& name) -> std::optional<std::string> {
    if (name == "SCRATCH") return dir;
    return std::nullopt;
  };
  return o;
}

std::string errors_of(const std::expected<Config, ConfigErrors>& r) {
  return r ? std::string() : format_diagnostics(r.error());
}

const char* kFull = R"(
models:
  - name: tiny
    path: tiny.gguf
    threads: 2
    max_num_seqs: 16
    max_prefill_tokens: 64
    kv_cache_size: 256MiB
    kv_dtype: q8_0
    prefix_cache: false
    batching: static
agents:
  - name: plain
    type: llm
    model: tiny
    system_prompt_file: prompts/system.txt
    move_template: "Moves so far: {history}. Your move:"
    temperature: 0.7
    seed: 11
  - name: thinker
    type: llm
    mode: reason
    reasoning_tokens: 64
    notation: uci
  - name: sf
    type: uci
    command: /bin/sh
    skill_level: 1
    movetime: 50ms
    hash: 32MiB
    options: {Ponder: "false"}
  - name: search
    type: search
    depth: 2
  - name: rnd
    type: random
    seed: 5
tournament:
  games: [chess, janggi]
  format: double_round_robin
  games_per_pairing: 4
  openings: {file: "${SCRATCH}/openings.epd", order: random, janggi_setups: true}
  concurrency: 3
  tick: 500ms
  move_deadline: 2s
  deadline_policy: random_move
  clock: {base: 1m, increment: 1s}
  adjudication:
    max_plies: 200
    referee: sf
    draw: {move_number: 30, move_count: 6, score: 15}
    resign: {score: 800}
  seed: 42
output: {dir: out/run1}
web: {port: 0}
)";

}  // namespace

TEST_CASE("a referee that plays no game is asked about every game of the tournament", "[arena]") {
  // A UCI player without `variants:` plays chess only (its engine is not run to ask), but the
  // referee's engine says what it plays when it starts (Fairy-Stockfish: janggi too), so it is
  // not narrowed: the quickstart's janggi games were not refereed when it was.
  Scratch s;
  const char* text = R"(
agents:
  - {name: search, type: search, depth: 1}
  - {name: rnd, type: random}
  - {name: ref, type: uci, command: /bin/sh, depth: 6}
tournament:
  games: [chess, janggi]
  agents: [search, rnd]
  adjudication: {referee: ref, resign: {move_count: 3, score: 1000}}
web: {port: 0}
)";
  auto r = load_config_from_string(text, s.file("referee.yaml"), options_for(s));
  REQUIRE(errors_of(r) == "");
  const auto& referee = r->tournament.adjudication.referee_agent;
  REQUIRE(referee);
  CHECK(referee->variants == std::vector<std::string>{"chess", "janggi"});
}

TEST_CASE("a full config is read into the typed structs", "[arena]") {
  Scratch s;
  auto r = load_config_from_string(kFull, s.file("full.yaml"), options_for(s));
  REQUIRE(errors_of(r) == "");
  const Config& c = *r;
  CHECK(c.source_path == s.file("full.yaml"));
  REQUIRE(c.models.size() == 1);
  CHECK(c.models[0].path == s.file("tiny.gguf"));
  CHECK(c.models[0].threads == 2);
  CHECK(c.models[0].engine.scheduler.max_num_seqs == 16);
  CHECK(c.models[0].engine.scheduler.max_prefill_tokens == 64);
  CHECK(c.models[0].engine.scheduler.mode == engine::BatchingMode::Static);
  CHECK(c.models[0].engine.cache.kv_cache_bytes == size_t{256} << 20);
  CHECK(c.models[0].engine.cache.dtype == engine::KvDtype::Q8_0);
  CHECK_FALSE(c.models[0].engine.cache.enable_prefix_cache);

  REQUIRE(c.agents.size() == 5);
  const auto& plain = std::get<agents::LlmAgentConfig>(c.agents[0].params);
  CHECK(plain.system_prompt == "You are a careful chess player.\n");
  CHECK(plain.move_template == "Moves so far: {history}. Your move:");
  CHECK_THAT(plain.prompt_source, Catch::Contains("prompts/system.txt"));
  CHECK(plain.sampling.temperature == Approx(0.7f));
  CHECK(plain.sampling.seed == 11u);
  CHECK(c.agents[0].variants == std::vector<std::string>{"chess", "janggi"});
  const auto& thinker = std::get<agents::LlmAgentConfig>(c.agents[1].params);
  CHECK(thinker.model == "tiny");  // the first model by default
  CHECK(thinker.mode == agents::OutputMode::Reason);
  CHECK(thinker.reasoning_tokens == 64);
  const auto& sf = std::get<agents::UciAgentConfig>(c.agents[2].params);
  CHECK(sf.command == "/bin/sh");
  CHECK(sf.skill_level == 1);
  CHECK(sf.movetime == milliseconds(50));
  CHECK(sf.hash_mb == 32);
  CHECK(sf.options.at("Ponder") == "false");
  CHECK(c.agents[2].variants == std::vector<std::string>{"chess"});  // a UCI engine plays chess unless told
  CHECK(std::get<agents::SearchAgentConfig>(c.agents[3].params).depth == 2);
  CHECK(std::get<agents::RandomAgentConfig>(c.agents[4].params).seed == 5u);

  const TournamentConfig& t = c.tournament;
  CHECK(t.games == std::vector<std::string>{"chess", "janggi"});
  CHECK(t.format == Format::DoubleRoundRobin);
  CHECK(t.agents == std::vector<std::string>{"plain", "thinker", "sf", "search", "rnd"});
  CHECK(t.games_per_pairing == 4);
  CHECK(t.openings.file == s.file("openings.epd"));
  CHECK(t.openings.order == OpeningOrder::Random);
  CHECK(t.openings.janggi_setups);
  CHECK(t.concurrency == 3);
  CHECK(t.tick == milliseconds(500));
  CHECK(t.move_deadline == milliseconds(2000));
  CHECK(t.deadline_policy == DeadlinePolicy::RandomMove);
  REQUIRE(t.clock);
  CHECK(t.clock->base == milliseconds(60000));
  CHECK(t.clock->increment == milliseconds(1000));
  CHECK(t.adjudication.max_plies == 200);
  CHECK(t.adjudication.referee == "sf");
  // The referee's engine config travels with the tournament (the runner starts it from there).
  REQUIRE(t.adjudication.referee_agent);
  CHECK(t.adjudication.referee_agent->name == "sf");
  CHECK(std::get<agents::UciAgentConfig>(t.adjudication.referee_agent->params).command == "/bin/sh");
  CHECK(t.adjudication.draw_move_number == 30);
  CHECK(t.adjudication.draw_move_count == 6);
  CHECK(t.adjudication.draw_score_cp == 15);
  CHECK(t.adjudication.resign_move_count == 3);
  CHECK(t.adjudication.resign_score_cp == 800);
  CHECK(t.seed == 42u);
  CHECK(c.output.dir == "out/run1");
  CHECK(c.web.port == 0);
  CHECK(c.web.bind == "127.0.0.1");
}

TEST_CASE("a minimal config gets every default, the default model included", "[arena]") {
  Scratch s;
  auto r = load_config_from_string("agents:\n  - {name: a, type: llm}\n  - {name: b, type: random}\n",
                                   s.file("min.yaml"), options_for(s));
  REQUIRE(errors_of(r) == "");
  REQUIRE(r->models.size() == 1);
  CHECK(r->models[0].name == "default");
  CHECK(r->models[0].path == s.file("tiny.gguf"));
  CHECK(std::get<agents::LlmAgentConfig>(r->agents[0].params).model == "default");
  CHECK(r->tournament.games == std::vector<std::string>{"chess"});
  CHECK(r->tournament.format == Format::RoundRobin);
  CHECK(r->tournament.games_per_pairing == 2);
  CHECK(r->tournament.concurrency == 4);
  CHECK(r->tournament.tick == milliseconds(1000));
  CHECK(r->tournament.agents == std::vector<std::string>{"a", "b"});
  CHECK(r->output.dir == "results");
  CHECK(r->web.port == 8080);
}

TEST_CASE("an agent that names a notation plays only the games it fits", "[arena]") {
  Scratch s;
  auto r = load_config_from_string(R"(
tournament: {games: [chess, janggi], agents: [k, s, r]}
agents:
  - {name: k, type: llm, notation: korean}
  - {name: s, type: llm, notation: san}
  - {name: r, type: random}
  - {name: unused, type: uci, command: /bin/sh, depth: 1}
)",
                                   s.file("v.yaml"), options_for(s));
  REQUIRE(errors_of(r) == "");
  CHECK(r->agents[0].variants == std::vector<std::string>{"janggi"});
  CHECK(r->agents[1].variants == std::vector<std::string>{"chess"});
  CHECK(r->agents[2].variants == std::vector<std::string>{"chess", "janggi"});
  CHECK(r->agents[3].variants == std::vector<std::string>{"chess"});
}

TEST_CASE("an openai fleet: endpoints as URLs or mappings, routing, seed and session header", "[arena]") {
  Scratch s;
  auto r = load_config_from_string(R"(
agents:
  - name: f
    type: llm
    backend: openai
    openai:
      model: m
      endpoints: ["http://a:8000/v1", {url: "http://b:8000/v1", weight: 3, api_key_env: B_KEY}]
      routing: least_loaded
      routing_seed: 9
      session_header: X-Affinity
  - {name: one, type: llm, backend: openai, openai: {base_url: "http://c:8000/v1", model: m}}
)",
                                   s.file("f.yaml"), options_for(s));
  REQUIRE(errors_of(r) == "");
  const auto& f = std::get<agents::LlmAgentConfig>(r->agents[0].params).openai;
  REQUIRE(f.endpoints.size() == 2);
  CHECK(f.endpoints[0].base_url == "http://a:8000/v1");
  CHECK(f.endpoints[0].weight == 1);
  CHECK(f.endpoints[1].base_url == "http://b:8000/v1");
  CHECK(f.endpoints[1].weight == 3);
  CHECK(f.endpoints[1].api_key_env == "B_KEY");
  CHECK(f.routing == agents::Routing::LeastLoaded);
  CHECK(f.routing_seed == 9);
  CHECK(f.session_header == "X-Affinity");
  const auto& one = std::get<agents::LlmAgentConfig>(r->agents[1].params).openai;
  CHECK(one.endpoints.empty());
  CHECK(one.routing == agents::Routing::PrefixAffinity);
  CHECK(one.session_header == "X-Session-ID");
}

TEST_CASE("gauntlet seed defaults to the first participant", "[arena]") {
  Scratch s;
  auto r = load_config_from_string(
      "tournament: {format: gauntlet, agents: [b, a, c]}\nagents: [{name: a, type: random}, {name: b, type: "
      "random}, "
      "{name: c, type: search}]\n",
      s.file("g.yaml"), options_for(s));
  REQUIRE(errors_of(r) == "");
  CHECK(r->tournament.gauntlet_seed_agent == "b");
}

TEST_CASE("${VAR} and ${VAR:-default} expand in paths", "[arena]") {
  Scratch s;
  auto o = options_for(s);
  auto r = load_config_from_string(
      "models: [{name: m, path: '${SCRATCH}/tiny.gguf'}, {name: n, path: '${NOT_SET:-.}/tiny.gguf'}]\n"
      "agents: [{name: a, type: llm, model: n}, {name: b, type: random}]\n",
      s.file("env.yaml"), o);
  REQUIRE(errors_of(r) == "");
  CHECK(r->models[0].path == s.file("tiny.gguf"));
  CHECK(r->models[1].path == s.file("tiny.gguf"));
}

TEST_CASE("command-line overrides replace the file's values and are checked", "[arena]") {
  Scratch s;
  auto o = options_for(s);
  o.overrides.output_dir = "elsewhere";
  o.overrides.web_port = 0;
  o.overrides.seed = 9;
  o.overrides.concurrency = 1;
  o.overrides.games_per_pairing = 6;
  auto r = load_config_from_string("agents: [{name: a, type: random}, {name: b, type: random}]\n",
                                   s.file("o.yaml"), o);
  REQUIRE(errors_of(r) == "");
  CHECK(r->output.dir == "elsewhere");
  CHECK(r->web.port == 0);
  CHECK(r->tournament.seed == 9u);
  CHECK(r->tournament.concurrency == 1);
  CHECK(r->tournament.games_per_pairing == 6);

  o.overrides.concurrency = 0;
  o.overrides.games_per_pairing = 3;
  o.overrides.web_port = 70000;
  auto bad = load_config_from_string("agents: [{name: a, type: random}, {name: b, type: random}]\n",
                                     s.file("o.yaml"), o);
  REQUIRE_FALSE(bad);
  CHECK(format_diagnostics(bad.error()) ==
        "--web-port: must be between 0 and 65535, got 70000\n"
        "--concurrency: must be at least 1, got 0\n"
        "--games: must be an even number >= 2 (games are played in colour-swapped pairs), got 3\n");
}

TEST_CASE("the resolved config loads back to the same config and hash", "[arena]") {
  Scratch s;
  auto first = load_config_from_string(kFull, s.file("full.yaml"), options_for(s));
  REQUIRE(errors_of(first) == "");
  const std::string text = resolved_yaml(*first);
  CHECK_THAT(text, Catch::Contains("concurrency: 3"));
  CHECK_THAT(text, Catch::Contains("kv_cache_size: 256MiB"));
  CHECK_THAT(text, Catch::Contains("tick: 500ms"));
  auto second = load_config_from_string(text, s.file("resolved.yaml"), options_for(s));
  REQUIRE(errors_of(second) == "");
  CHECK(emit_yaml(to_yaml_tree(*second)) == emit_yaml(to_yaml_tree(*first)));
  CHECK(config_hash(*first) == config_hash(*second));
  CHECK(diff_configs(*first, *second, /*results_only=*/false).empty());
  CHECK(config_hash(*first).size() == 16);
}

TEST_CASE("multi-line and escaped strings load back from the resolved config", "[arena]") {
  // Found by config_fuzzer: yaml-cpp writes a multi-line value as a "|" literal block, which keeps
  // exactly one final line break and takes its indentation from the first line; other values are
  // written double-quoted, with escapes.
  Scratch s;
  for (const char* value : {"x\\ny", "end\\n", "two\\n\\n", "\\nfirst empty\\n", " lead\\nx\\n",
                            "\\tlead\\nx\\n", "tab\\there\\nok\\n", "cr\\r\\nlf\\n", "ls\\Lx\\ny\\n",
                            "bom\\ufeff\\ny\\n", "trail \\n", "\\n", "\\n\\n", "장기\\n한수"}) {
    INFO(value);
    const std::string text = fmt::format(
        "agents: [{{name: a, type: random}}, {{name: b, type: random}}]\n"
        "output: {{dir: \"{}\"}}\n",
        value);
    auto first = load_config_from_string(text, s.file("escapes.yaml"), options_for(s));
    REQUIRE(errors_of(first) == "");
    const std::string resolved = resolved_yaml(*first);
    INFO(resolved.substr(resolved.find("output:")));
    auto second = load_config_from_string(resolved, s.file("resolved.yaml"), options_for(s));
    REQUIRE(errors_of(second) == "");
    CHECK(second->output.dir == first->output.dir);
    CHECK(diff_configs(*first, *second, /*results_only=*/false).empty());
  }
  // A control character from an escape is refused where the value stands.
  for (const char* value : {"a\\0b", "x\\x01y", "e\\e", "del\\x7f", "c1\\x9b", "\\uffff"}) {
    INFO(value);
    const std::string text = fmt::format(
        "agents: [{{name: a, type: random}}, {{name: b, type: random}}]\n"
        "output: {{dir: \"{}\"}}\n",
        value);
    const auto bad = load_config_from_string(text, "c.yaml", options_for(s));
    REQUIRE_FALSE(bad);
    CHECK(bad.error().front().mark.line == 2);
    CHECK_THAT(bad.error().front().message, Catch::Contains("control character"));
  }
}

TEST_CASE("the hash and the diff see the fields that change results, not output or web", "[arena]") {
  Scratch s;
  auto a = load_config_from_string(kFull, s.file("full.yaml"), options_for(s));
  REQUIRE(errors_of(a) == "");
  Config b = *a;
  b.output.dir = "other";
  b.web.port = 9000;
  b.tournament.concurrency = 8;
  CHECK(config_hash(*a) == config_hash(b));
  CHECK(diff_configs(*a, b).empty());
  CHECK(diff_configs(*a, b, /*results_only=*/false).size() == 3);

  b.tournament.seed = 43;
  std::get<agents::LlmAgentConfig>(b.agents[0].params).sampling.temperature = 0.5f;
  b.agents.pop_back();
  b.tournament.agents.pop_back();
  CHECK(config_hash(*a) != config_hash(b));
  const auto diffs = diff_configs(*a, b);
  const std::string text = format_diff(diffs);
  CHECK_THAT(text, Catch::Contains("agents.plain.temperature: 0.7 -> 0.5"));
  CHECK_THAT(text, Catch::Contains("agents.rnd.seed: 5 -> (absent)"));
  CHECK_THAT(text, Catch::Contains("tournament.seed: 42 -> 43"));
  CHECK_THAT(text, Catch::Contains("tournament.agents[4]: \"rnd\" -> (absent)"));
}
