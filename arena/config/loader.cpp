// load_config: reads the file, parses the YAML tree, hands each top-level section to its
// reader, applies the command-line overrides, runs the cross-reference checks, and returns the
// Config or every error found.
#include "arena/config/loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <fstream>
#include <sstream>
#include <system_error>

#include "arena/config/sections.h"

namespace arena::config {

std::string LoadContext::path(const std::string& text, SourceMark mark, bool resolve) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size() || text[i + 1] != '{') {
      out += text[i];
      continue;
    }
    const size_t close = text.find('}', i + 2);
    if (close == std::string::npos) {
      diag.error(mark, fmt::format("unclosed '${{' in path '{}'", text));
      return {};
    }
    std::string name = text.substr(i + 2, close - i - 2);
    std::optional<std::string> fallback;
    if (const size_t dash = name.find(":-"); dash != std::string::npos) {
      fallback = name.substr(dash + 2);
      name.resize(dash);
    }
    const bool valid_name = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                            std::all_of(name.begin(), name.end(), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                            });
    if (!valid_name || (fallback && fallback->find("${") != std::string::npos)) {
      diag.error(
          mark,
          fmt::format("bad ${{...}} in path '{}': write ${{NAME}} or ${{NAME:-fallback}} (NAME: letters, "
                      "digits, _; no ${{ inside)",
                      text));
      return {};
    }
    std::optional<std::string> value = options.get_env ? options.get_env(name) : std::nullopt;
    if (value && value->empty()) value.reset();
    if (!value) value = fallback;
    if (!value) {
      diag.error(mark,
                 fmt::format("environment variable {} is not set (used in path '{}'; write ${{{}:-DEFAULT}} "
                             "for a fallback)",
                             name, text, name));
      return {};
    }
    out += *value;
    i = close;
  }
  if (out.find("${") != std::string::npos) {
    diag.error(mark, fmt::format("path '{}' still holds '${{' after expanding '{}'", out, text));
    return {};
  }
  if (out.empty() || !resolve) return out;
  std::filesystem::path p(out);
  if (p.is_relative()) p = base_dir / p;
  return p.lexically_normal().string();
}

std::string LoadContext::read_file(const std::string& path, SourceMark mark, std::string_view what) {
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    diag.error(mark, fmt::format("{} '{}' not found", what, path));
    return {};
  }
  if (std::filesystem::file_size(path, ec) > kMaxBytes) {
    diag.error(mark, fmt::format("{} '{}' is larger than 1 MiB", what, path));
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) diag.error(mark, fmt::format("cannot read {} '{}'", what, path));
  return text.str();
}

namespace {

void read_output_web(const YamlNode* output, const YamlNode* web, LoadContext& ctx, Config& config,
                     Marks& marks) {
  FieldReader out(output, "output", ctx.diag);
  out.read("dir", config.output.dir);
  marks.output_dir = out.mark("dir");
  if (out.has("dir")) config.output.dir = ctx.path(config.output.dir, marks.output_dir, /*resolve=*/false);
  out.finish();

  read_web(web, ctx, config, marks);
}

void apply_overrides(const Overrides& o, Diagnostics& diag, Config& config) {
  if (o.output_dir) config.output.dir = *o.output_dir;
  if (o.web_port) {
    if (*o.web_port < 0 || *o.web_port > 65535)
      diag.error_at("--web-port", fmt::format("must be between 0 and 65535, got {}", *o.web_port));
    else
      config.web.port = *o.web_port;
  }
  apply_web_overrides(o, diag, config);
  if (o.seed) config.tournament.seed = *o.seed;
  if (o.concurrency) {
    if (*o.concurrency < 1)
      diag.error_at("--concurrency", fmt::format("must be at least 1, got {}", *o.concurrency));
    else
      config.tournament.concurrency = *o.concurrency;
  }
  if (o.games_per_pairing) {
    if (*o.games_per_pairing < 2 || *o.games_per_pairing % 2 != 0)
      diag.error_at("--games", fmt::format("must be an even number >= 2 (games are played in colour-swapped "
                                           "pairs), got {}",
                                           *o.games_per_pairing));
    else
      config.tournament.games_per_pairing = *o.games_per_pairing;
  }
}

std::expected<Config, ConfigErrors> load_text(std::string_view text, const std::string& source_name,
                                              const std::filesystem::path& source_path,
                                              const LoadOptions& options) {
  Diagnostics diag(source_name);
  auto root = parse_yaml(text, source_name);
  if (!root) return std::unexpected(ConfigErrors{root.error()});
  if (root->is_null()) {
    diag.error({1, 1}, "the config is empty: it needs at least `agents:` (see docs/config.md)");
    return std::unexpected(std::move(diag.errors()));
  }

  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(source_path, ec);
  if (ec) absolute = source_path;
  LoadContext ctx{diag, absolute.parent_path(), options, text};

  Config config;
  config.source_path = absolute.lexically_normal().string();
  Marks marks;
  FieldReader top(&*root, "the config", diag);
  if (!root->is_map()) return std::unexpected(std::move(diag.errors()));
  read_models(top.get("models"), ctx, config, marks);
  read_agents(top.get("agents"), ctx, config, marks);
  read_tournament(top.get("tournament"), ctx, config, marks);
  read_ratings(top.get("ratings"), ctx, config);
  read_output_web(top.get("output"), top.get("web"), ctx, config, marks);
  top.finish();
  apply_overrides(options.overrides, diag, config);
  check_config(ctx, config, marks);

  if (options.warnings)
    options.warnings->insert(options.warnings->end(), diag.warnings().begin(), diag.warnings().end());
  if (!diag.has_errors()) return config;
  // In file order, whatever check found them (command-line overrides, without a line, last).
  auto errors = std::move(diag.errors());
  std::stable_sort(errors.begin(), errors.end(), [](const Diagnostic& a, const Diagnostic& b) {
    const auto key = [](const Diagnostic& d) {
      return std::pair(d.mark.line > 0 ? d.mark.line : INT32_MAX, d.mark.column);
    };
    return key(a) < key(b);
  });
  return std::unexpected(std::move(errors));
}

}  // namespace

std::expected<Config, ConfigErrors> load_config(const std::filesystem::path& path,
                                                const LoadOptions& options) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return std::unexpected(ConfigErrors{{name, {}, "cannot open the config file (no such file)"}});
  try {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return std::unexpected(ConfigErrors{{name, {}, "cannot read the config file"}});
    return load_text(text.str(), name, path, options);
  } catch (const std::exception& e) {
    return std::unexpected(ConfigErrors{{name, {}, fmt::format("cannot load the config: {}", e.what())}});
  }
}

std::expected<Config, ConfigErrors> load_config_from_string(std::string_view text,
                                                            const std::string& source_name,
                                                            const LoadOptions& options) {
  try {
    return load_text(text, source_name, source_name, options);
  } catch (const std::exception& e) {
    return std::unexpected(
        ConfigErrors{{source_name, {}, fmt::format("cannot load the config: {}", e.what())}});
  }
}

}  // namespace arena::config
