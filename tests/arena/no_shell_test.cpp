// No shell anywhere between a config and the processes and files it names (docs/security.md): a
// UCI engine is exec'd with its argument vector as written, and `${VAR}` expansion in paths
// splices the variable's text into one path. A variable or an argument holding shell syntax
// ("x --flag; touch FILE", "$(touch FILE)") stays one argument / one path, and nothing it
// names runs: the test engine records the argv it got, and the files the injection would touch
// must not exist.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "arena/config/loader.h"

namespace fs = std::filesystem;

namespace {

// A UCI engine that writes its argument count and each argument (one per line) to args.txt in
// its own folder, then answers the handshake.
constexpr const char* kRecorder = R"(#!/bin/bash
{ echo "$#"; for a in "$@"; do echo "$a"; done; } > "$(dirname "$0")/args.txt"
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name Recorder"; echo uciok ;;
    isready) echo readyok ;;
    quit) exit 0 ;;
  esac
done
)";

struct Sandbox {
  fs::path dir;
  std::string marker;  // the file names an injection would create start with it
  Sandbox() {
    char tmpl[] = "/tmp/arena-no-shell-XXXXXX";
    dir = mkdtemp(tmpl);
    marker = "arena-pwned-" + std::to_string(::getpid());
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // Whether a file an injected `touch` would create exists: in the current folder (where a shell
  // started by the test would run) or anywhere in the sandbox.
  bool pwned() const {
    std::error_code ec;
    for (int i = 1; i <= 5; ++i)
      if (fs::exists(fs::current_path() / (marker + std::to_string(i)), ec)) return true;
    for (const auto& entry : fs::recursive_directory_iterator(dir, ec))
      if (entry.path().filename().string().starts_with(marker)) return true;
    return false;
  }
};

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("a UCI command and its arguments reach the engine as written, through no shell",
          "[arena][security]") {
  Sandbox s;
  // A folder whose name is shell syntax; the engine inside it.
  const fs::path engine_dir =
      s.dir / ("e; touch " + s.marker + "1 $(touch " + s.marker + "2) `touch " + s.marker + "3`");
  fs::create_directories(engine_dir);
  const fs::path engine = engine_dir / "engine.sh";
  std::ofstream(engine) << kRecorder;
  ::chmod(engine.c_str(), 0755);

  const std::string yaml =
      "agents:\n  - name: u\n    type: uci\n    command: ${ENGINE_DIR}/engine.sh\n"
      "    args: ['${ARG}', 'two words', '; touch " +
      s.marker + "4', '$(touch " + s.marker + "5)']\n    depth: 1\n  - {name: r, type: random}\n";
  arena::config::LoadOptions options;
  options.get_env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "ENGINE_DIR") return engine_dir.string();
    if (name == "ARG") return "x --flag; touch " + s.marker + "4";
    if (name == "PATH") return "/usr/bin:/bin";
    return std::nullopt;
  };
  auto config = arena::config::load_config_from_string(yaml, (s.dir / "c.yaml").string(), options);
  REQUIRE(config.has_value());
  const auto& uci = std::get<agents::UciAgentConfig>(config->agents[0].params);
  CHECK(uci.command == engine.string());  // the variable spliced in as text, one path
  {
    agents::AgentEnvironment env;
    env.get_env = options.get_env;
    auto agent = agents::make_agent(config->agents[0], env);
    REQUIRE(agent.has_value());
  }
  // argv: exactly the four arguments, none split, none expanded (args are not paths: no ${VAR}).
  const std::vector<std::string> argv = lines_of(engine_dir / "args.txt");
  CHECK(argv == std::vector<std::string>{"4", "${ARG}", "two words", "; touch " + s.marker + "4",
                                         "$(touch " + s.marker + "5)"});
  CHECK_FALSE(s.pwned());
}

TEST_CASE("a ${VAR} holding shell syntax stays one path", "[arena][security]") {
  Sandbox s;
  const std::string hostile = "x --flag; touch " + s.marker + "1 && $(touch " + s.marker + "2)";
  arena::config::LoadOptions options;
  options.get_env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "EVIL") return hostile;
    return std::nullopt;
  };
  const std::string yaml =
      "models: [{name: m, path: '${EVIL}'}]\n"
      "agents:\n  - {name: a, type: llm, model: m}\n  - {name: u, type: uci, command: '${EVIL}', depth: 1}\n";
  const fs::path file = s.dir / "c.yaml";

  // Checked: each is reported missing under its whole name, and nothing ran.
  auto checked = arena::config::load_config_from_string(yaml, file.string(), options);
  REQUIRE_FALSE(checked.has_value());
  const std::string errors = arena::config::format_diagnostics(checked.error());
  CHECK(errors.find(fmt::format("model file '{}' not found", (s.dir / hostile).string())) !=
        std::string::npos);
  CHECK(errors.find(fmt::format("UCI engine '{}' not found", hostile)) != std::string::npos);
  CHECK_FALSE(s.pwned());

  // Unchecked: the fields hold the variable's text as one path / one command name.
  options.check_files = false;
  auto loaded = arena::config::load_config_from_string(yaml, file.string(), options);
  REQUIRE(loaded.has_value());
  CHECK(loaded->models[0].path == (s.dir / hostile).string());
  CHECK(std::get<agents::UciAgentConfig>(loaded->agents[1].params).command == hostile);
  // Starting that command looks for one executable of that name, and runs nothing.
  agents::AgentEnvironment env;
  env.get_env = [](const std::string&) { return std::optional<std::string>("/usr/bin:/bin"); };
  auto agent = agents::make_agent(loaded->agents[1], env);
  REQUIRE_FALSE(agent.has_value());
  CHECK(agent.error().message.find(fmt::format("'{}' not found", hostile)) != std::string::npos);
  CHECK_FALSE(s.pwned());
}
