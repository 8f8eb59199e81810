// The resolved config: every field of a loaded Config, defaults filled in, written back as YAML
// (a config file that loads to the same Config), its stable hash, and a field-by-field diff of
// two configs, which resume uses to say exactly what changed.
#pragma once

#include <string>
#include <vector>

#include "arena/config/config.h"
#include "arena/config/yaml_tree.h"

namespace arena::config {

// The config as a YAML tree, every field present (absent optionals as null).
YamlNode to_yaml_tree(const Config& config);

// The resolved config as YAML text, with a header comment naming its source.
std::string resolved_yaml(const Config& config);

// The file name arena run writes the resolved config to, inside the output directory.
inline constexpr const char* kResolvedConfigFile = "config.yaml";

// Whether a field (as diff_configs names it: "tournament.concurrency", "agents.sf.depth") changes
// the games' results. Output, web, ratings and concurrency do not, so a resumed run may change them.
bool affects_results(const std::string& field);

// 16 hex digits of a 64-bit FNV-1a hash over every field that affects results, in a form that
// does not depend on YAML formatting: equal for configs that play the same tournament.
std::string config_hash(const Config& config);

struct FieldDiff {
  std::string field;   // "tournament.games_per_pairing", "agents.llm-a.temperature", "models[0].path"
  std::string before;  // "(absent)" when the field is new
  std::string after;   // "(absent)" when the field was removed
};

// The fields whose values differ, in config order; with `results_only` only those that
// affect_results.
std::vector<FieldDiff> diff_configs(const Config& before, const Config& after, bool results_only = true);

// "tournament.seed: 1 -> 2" lines, one per difference.
std::string format_diff(const std::vector<FieldDiff>& diffs);

}  // namespace arena::config
