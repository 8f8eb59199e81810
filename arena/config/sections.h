// Internal to arena/config: the pieces of one load (the context with path expansion, and the
// places of the fields that cross-reference checks point at), shared by the section readers
// models_section.cpp, agents_section.cpp, tournament_section.cpp and the checks in validate.cpp.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "arena/config/config.h"
#include "arena/config/diagnostics.h"
#include "arena/config/fields.h"
#include "arena/config/loader.h"
#include "arena/config/yaml_tree.h"

namespace arena::config {

struct LoadContext {
  Diagnostics& diag;
  std::filesystem::path base_dir;  // the config file's folder (absolute)
  const LoadOptions& options;
  std::string_view text = {};  // the config file's text (to place errors inside a value)

  // `text` with ${VAR} and ${VAR:-default} expanded (errors at `mark`), resolved against
  // base_dir when relative and `resolve` is set, lexically normalized.
  std::string path(const std::string& text, SourceMark mark, bool resolve = true);
  // The contents of the file at `path` (already resolved), or "" with an error at `mark`.
  std::string read_file(const std::string& path, SourceMark mark, std::string_view what);
};

// Reports each problem of prompt `key` ("system_prompt", "move_template"): at the placeholder
// in the inline `value`, or at `file_mark` naming `file` when the text came from a file.
void check_prompt(LoadContext& ctx, const std::string& key, const std::string& text, const YamlNode* value,
                  SourceMark file_mark, const std::string& file);

struct ModelMarks {
  SourceMark entry, name, path;
  bool path_given = false;
};

struct AgentMarks {
  SourceMark entry, name, type, model, variants, notation, command;
  std::vector<SourceMark> variant_items;
};

struct TournamentMarks {
  SourceMark section, games, agents, gauntlet_seed, referee, draw, resign, sprt, openings_file, janggi_setups;
  std::vector<SourceMark> game_items, agent_items;
};

struct Marks {
  std::vector<ModelMarks> models;
  std::vector<AgentMarks> agents;
  TournamentMarks tournament;
  SourceMark output_dir, web_port, web_bind;
};

void read_models(const YamlNode* node, LoadContext& ctx, Config& config, Marks& marks);
void read_agents(const YamlNode* node, LoadContext& ctx, Config& config, Marks& marks);
void read_tournament(const YamlNode* node, LoadContext& ctx, Config& config, Marks& marks);
// The `ratings:` section (ratings_section.cpp); after read_agents (anchors name agents).
void read_ratings(const YamlNode* node, LoadContext& ctx, Config& config);
// An LLM agent's `openai:` settings: one server or a fleet (`endpoints:`) (openai_section.cpp).
void read_openai(const YamlNode* node, const std::string& agent, LoadContext& ctx,
                 agents::OpenAiBackendConfig& o);
// The `web:` section (web_section.cpp).
void read_web(const YamlNode* node, LoadContext& ctx, Config& config, Marks& marks);
// The command line's --allowed-host / --allowed-origin, added to the web section (web_section.cpp).
void apply_web_overrides(const Overrides& overrides, Diagnostics& diag, Config& config);
// Cross-reference checks and resolved defaults (participants, variants, models of LLM agents).
void check_config(LoadContext& ctx, Config& config, const Marks& marks);

}  // namespace arena::config
