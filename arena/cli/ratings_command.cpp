// `arena ratings DIR... [--anchor NAME=ELO]... [--format txt|md|json|csv]`: one rating table over
// the finished games of several results folders (their events.jsonl), the same agent name across
// runs being one player (arena/tournament/pool_ratings.h). It says when an agent's configuration
// differs between the runs (their config.yaml), since the name then covers different players.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "arena/cli/command.h"
#include "arena/config/resolved.h"
#include "arena/config/yaml_tree.h"
#include "arena/tournament/event_log.h"
#include "arena/tournament/pool_ratings_report.h"
#include "arena/tournament/results_files.h"
#include "arena/tournament/standings.h"

namespace arena::cli {

namespace {

namespace fs = std::filesystem;
using tournament::PoolGame;

struct RatingsFlags {
  std::vector<std::string> dirs, anchors;
  double mean = 0;
  std::string advantage = "0";
  int32_t simulations = 1000;
  double confidence = 95;
  uint64_t seed = 1;
  std::string format = "txt";
  std::string output;
};

// One results folder: its finished games and each agent's entry of its resolved config.
struct Source {
  std::string dir;
  std::vector<PoolGame> games;
  std::map<std::string, std::string> agent_configs;  // name -> the agent's YAML
  std::map<std::string, double> anchors;             // its config's ratings.anchors
};

std::expected<Source, std::string> read_source(const std::string& dir) {
  Source s{dir, {}, {}, {}};
  fs::path log = fs::path(dir) / "events.jsonl";
  if (fs::is_regular_file(dir)) log = dir;
  if (!fs::exists(log))
    return std::unexpected(fmt::format("'{}' has no events.jsonl (is it a results folder?)", dir));
  auto contents = tournament::read_event_log(log);
  if (!contents) return std::unexpected(contents.error());
  tournament::GameBook book;
  for (const auto& j : contents->events)
    if (auto event = tournament::parse_event(j)) book.apply(*event);
  s.games = tournament::pool_games(book);

  std::ifstream in(log.parent_path() / config::kResolvedConfigFile);
  if (!in) return s;
  std::stringstream text;
  text << in.rdbuf();
  auto root = config::parse_yaml(text.str(), (log.parent_path() / config::kResolvedConfigFile).string());
  if (!root || !root->is_map()) return s;
  for (const auto& e : root->entries) {
    if (e.key.scalar == "agents" && e.value.is_sequence())
      for (const auto& agent : e.value.items)
        for (const auto& field : agent.entries)
          if (field.key.scalar == "name") s.agent_configs[field.value.scalar] = config::emit_yaml(agent);
    if (e.key.scalar == "ratings" && e.value.is_map())
      for (const auto& field : e.value.entries)
        if (field.key.scalar == "anchors" && field.value.is_map())
          for (const auto& a : field.value.entries)
            if (double v = 0;
                std::from_chars(a.value.scalar.data(), a.value.scalar.data() + a.value.scalar.size(), v).ec ==
                std::errc())
              s.anchors[a.key.scalar] = v;
  }
  return s;
}

// "NAME=ELO" as a pair; an error naming the flag's form otherwise.
std::expected<std::pair<std::string, double>, std::string> parse_anchor(const std::string& text) {
  const size_t eq = text.rfind('=');
  double elo = 0;
  if (eq == std::string::npos || eq == 0)
    return std::unexpected(fmt::format("--anchor '{}' is not NAME=ELO (e.g. --anchor random=0)", text));
  const std::string value = text.substr(eq + 1);
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), elo);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || !std::isfinite(elo))
    return std::unexpected(fmt::format("--anchor '{}': '{}' is not a number", text, value));
  return std::pair(text.substr(0, eq), elo);
}

// Agents whose configuration differs between the sources.
std::vector<std::string> config_notes(const std::vector<Source>& sources) {
  std::map<std::string, std::pair<std::string, std::string>> first;  // name -> (dir, yaml)
  std::vector<std::string> notes;
  for (const Source& s : sources)
    for (const auto& [name, yaml] : s.agent_configs) {
      auto [it, fresh] = first.emplace(name, std::pair(s.dir, yaml));
      if (!fresh && it->second.second != yaml)
        notes.push_back(
            fmt::format("agent '{}' is configured differently in {} and {} (their config.yaml): "
                        "its games are rated as one player",
                        name, it->second.first, s.dir));
    }
  return notes;
}

int run_ratings(const RatingsFlags& f) {
  tournament::PoolRatingOptions options;
  for (const auto& a : f.anchors) {
    auto anchor = parse_anchor(a);
    if (!anchor) return usage_error("ratings", anchor.error());
    options.anchors[anchor->first] = anchor->second;
  }
  if (f.advantage != "fit") {
    double elo = 0;
    const auto [end, ec] = std::from_chars(f.advantage.data(), f.advantage.data() + f.advantage.size(), elo);
    if (ec != std::errc() || end != f.advantage.data() + f.advantage.size() || std::abs(elo) > 1000)
      return usage_error("ratings", fmt::format("--first-move-advantage '{}' is `fit` or a number of Elo "
                                                "points between -1000 and 1000",
                                                f.advantage));
    options.first_move_advantage = elo;
  }
  std::vector<Source> sources;
  std::vector<PoolGame> games;
  for (const auto& dir : f.dirs) {
    auto s = read_source(dir);
    if (!s) return fail("ratings", s.error());
    games.insert(games.end(), s->games.begin(), s->games.end());
    if (f.anchors.empty())
      for (const auto& [name, elo] : s->anchors) options.anchors.emplace(name, elo);
    sources.push_back(std::move(*s));
  }
  if (games.empty()) return fail("ratings", "no finished game in the results given");
  options.pool_mean = f.mean;
  options.simulations = f.simulations;
  options.confidence = f.confidence / 100;
  options.seed = f.seed;
  const tournament::PoolRatings r = tournament::fit_pool_ratings(games, options);
  const std::vector<std::string> notes = config_notes(sources);

  std::string out;
  if (f.format == "json") {
    nlohmann::json j = tournament::pool_ratings_json(r);
    j["sources"] = nlohmann::json::array();
    for (const Source& s : sources) j["sources"].push_back({{"dir", s.dir}, {"games", s.games.size()}});
    j["notes"] = notes;
    out = j.dump(2) + "\n";
  } else if (f.format == "csv") {
    out = tournament::pool_ratings_csv(r);
  } else {
    const bool md = f.format == "md";
    for (const Source& s : sources)
      out += fmt::format("{}{}: {} games\n", md ? "- " : "", s.dir, s.games.size());
    out += "\n" + (md ? tournament::pool_ratings_markdown(r) : tournament::pool_ratings_text(r));
    for (const auto& n : notes) out += (md ? "\n**Note:** " : "Note: ") + n + "\n";
  }
  if (f.output.empty()) {
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  if (auto ok = tournament::write_file_atomic(f.output, out); !ok) return fail("ratings", ok.error());
  return 0;
}

}  // namespace

void add_ratings_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<RatingsFlags>();
  auto& f = *flags;
  auto* cmd = root.add_subcommand(
      "ratings", "Rate every agent at once over the finished games of results folders (Ordo's model)");
  cmd->add_option("dirs", f.dirs, "Results folders (or their events.jsonl)")->required();
  cmd->add_option("--anchor", f.anchors,
                  "NAME=ELO: hold an agent at a rating (repeatable; default: the runs' ratings.anchors, "
                  "else the pool's mean is fixed)");
  cmd->add_option("--mean", f.mean, "The pool's mean rating without anchors (default 0)")
      ->check(number_in(-100000, 100000));
  cmd->add_option("--first-move-advantage", f.advantage,
                  "Elo points for every variant (default 0), or `fit`: fitted per variant");
  cmd->add_option("--simulations", f.simulations, "Simulations for the error bars (default 1000; 0 = none)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--confidence", f.confidence, "Of the error bars, percent (default 95)")
      ->check(number_in(50, 99.99));
  cmd->add_option("--seed", f.seed, "Of the simulations (default 1)");
  cmd->add_option("--format", f.format, "txt (default), md, json or csv")
      ->check(CLI::IsMember({"txt", "md", "json", "csv"}));
  cmd->add_option("-o,--output", f.output, "Write to this file instead of standard output");
  cmd->callback([flags, &action] { action = [flags] { return run_ratings(*flags); }; });
}

}  // namespace arena::cli
