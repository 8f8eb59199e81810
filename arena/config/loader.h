// Loading a tournament config: YAML → arena::config::Config, parsed once, with every default
// filled in, paths resolved against the config file's folder, references checked, and every
// problem reported at once as `file:line:col: message`. docs/config.md documents the fields.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/config/config.h"
#include "arena/config/diagnostics.h"

namespace arena::config {

// Command-line overrides of the everyday fields (`arena run --output ... --games ...`),
// applied after the file is read and checked like the file's own values.
struct Overrides {
  std::optional<std::string> output_dir;
  std::optional<int32_t> web_port;
  std::vector<std::string> allowed_hosts;    // added to web.allowed_hosts
  std::vector<std::string> allowed_origins;  // added to web.allowed_origins
  std::optional<uint64_t> seed;
  std::optional<int32_t> concurrency;
  std::optional<int32_t> games_per_pairing;
};

struct LoadOptions {
  // Environment variables for `${VAR}` / `${VAR:-default}` in path fields; null = none is set.
  std::function<std::optional<std::string>(const std::string& name)> get_env;
  // The model used by a `models:` entry without `path`, and by LLM agents when the config has
  // no `models:` at all ("" = such a config is an error). `arena run` passes the project's
  // default model (today the quickstart's synthesized one; see docs/config.md).
  std::string default_model_path;
  // Check that model, prompt and openings files exist and that UCI engines can be found.
  bool check_files = true;
  Overrides overrides;
  // Receives the warnings (nothing wrong enough to refuse the config), when set.
  std::vector<Diagnostic>* warnings = nullptr;
};

using ConfigErrors = std::vector<Diagnostic>;

// Reads and checks the config file at `path`.
std::expected<Config, ConfigErrors> load_config(const std::filesystem::path& path,
                                                const LoadOptions& options = {});

// Reads and checks config text; `source_name` names it in messages, and relative paths resolve
// against its folder (the current directory when it has none). Never throws: the fuzz entry point.
std::expected<Config, ConfigErrors> load_config_from_string(std::string_view text,
                                                            const std::string& source_name,
                                                            const LoadOptions& options = {});

}  // namespace arena::config
