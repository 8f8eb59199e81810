// Shared helpers of the tournament tests: a fresh output folder, the files a run writes (read
// back), an observer that records the events, and a participant made through the agent factory.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "arena/tournament/runner.h"

namespace arena::test {

// An observer that keeps every event it is given, as JSON (docs/events.md).
class RecordingObserver final : public tournament::TournamentObserver {
 public:
  void on_event(const tournament::Event& event) override { events.push_back(nlohmann::json(event)); }
  std::vector<nlohmann::json> events;
};

// An empty folder <tmp>/arena_<kind>_<name>_<pid> (private to this process).
inline std::filesystem::path fresh_dir(const std::string& kind, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("arena_" + kind + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The events of <dir>/events.jsonl, one JSON object a line (blank lines skipped).
inline std::vector<nlohmann::json> read_events(const std::filesystem::path& dir) {
  std::vector<nlohmann::json> out;
  std::ifstream in(dir / "events.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

// A participant whose instances make_agent builds from `config` (no models, no environment).
inline tournament::Participant player(agents::AgentConfig config) {
  tournament::Participant p;
  p.name = config.name;
  p.make = [config]() { return agents::make_agent(config, agents::AgentEnvironment{}); };
  return p;
}

}  // namespace arena::test
