// The `agents:` section: name, type and variants, then the parameters of the type (llm, uci,
// search, random). Prompts come by value or from files relative to the config file. A key that
// belongs to another type is reported as such.
#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <limits>
#include <sstream>

#include "arena/config/sections.h"

namespace arena::config {
namespace {

using agents::AgentConfig;

const std::vector<std::string> kTypes = {"llm", "uci", "search", "random"};

// One prompt: by value (`key`) or from a file (`key_file`), not both.
void read_prompt(FieldReader& f, LoadContext& ctx, const std::string& key, std::string& text,
                 std::string& source) {
  const std::string file_key = key + "_file";
  const bool inline_given = f.has(key), file_given = f.has(file_key);
  f.read(key, text);
  std::string file;
  f.read(file_key, file);
  if (inline_given && file_given) {
    ctx.diag.error(f.mark(file_key), fmt::format("give {} or {}, not both", key, file_key));
    return;
  }
  if (file_given && !file.empty()) {
    file = ctx.path(file, f.mark(file_key));
    if (file.empty()) return;
    text = ctx.read_file(file, f.mark(file_key), key + " file");
    source += fmt::format("{}{}: {}", source.empty() ? "" : "; ", key, file);
    check_prompt(ctx, key, text, nullptr, f.mark(file_key), file);
  } else if (inline_given) {
    source += fmt::format("{}{}: {}:{}", source.empty() ? "" : "; ", key, ctx.diag.file(), f.mark(key).line);
    const YamlNode* value = f.get(key);
    if (value && value->is_scalar()) check_prompt(ctx, key, text, value, f.mark(key), "");
  }
}

// The sampling parameters: read as numbers here, range-checked by the engine's one check
// (engine::validate), whose message is reported at the offending key.
void read_sampling(FieldReader& f, LoadContext& ctx, engine::SamplingParams& s) {
  constexpr double kFloat = std::numeric_limits<float>::max();
  f.read("temperature", s.temperature, -kFloat, kFloat);
  f.read("top_k", s.top_k, INT32_MIN, INT32_MAX);
  f.read("top_p", s.top_p, -kFloat, kFloat);
  f.read("min_p", s.min_p, -kFloat, kFloat);
  f.read("seed", s.seed);
  f.read("max_tokens", s.max_tokens, INT32_MIN, INT32_MAX);
  if (const auto bad = engine::validate(s)) ctx.diag.error(f.mark(bad->field), bad->message);
}

void read_llm(FieldReader& f, LoadContext& ctx, const std::string& agent, agents::LlmAgentConfig& c,
              AgentMarks& marks) {
  f.read("model", c.model);
  marks.model = f.mark("model");
  f.read_enum("backend", c.backend, agents::kBackendKindNames);
  const YamlNode* openai = f.get("openai");
  if (c.backend == agents::BackendKind::OpenAi) {
    if (!openai)
      ctx.diag.error(f.mark("backend"),
                     fmt::format("agent '{}' has backend openai but no `openai:` settings", agent));
    read_openai(openai, agent, ctx, c.openai);
  } else if (openai) {
    ctx.diag.error(
        openai->mark,
        fmt::format("agent '{}' has `openai:` settings but backend engine (add backend: openai)", agent));
  }
  read_prompt(f, ctx, "system_prompt", c.system_prompt, c.prompt_source);
  read_prompt(f, ctx, "move_template", c.move_template, c.prompt_source);
  f.read_enum("notation", c.notation, agents::kNotationNames);
  marks.notation = f.mark("notation");
  f.read_enum("mode", c.mode, agents::kOutputModeNames);
  f.read_enum("history", c.history, agents::kHistoryModeNames);
  f.read("chat", c.chat);
  read_sampling(f, ctx, c.sampling);
  f.read("max_retries", c.max_retries, 0, 100);
  f.read_enum("on_failure", c.on_failure, agents::kOnFailureNames);
  f.read("reasoning_tokens", c.reasoning_tokens, 1, 1 << 16);
  f.read("reasoning_marker", c.reasoning_marker);
  if (c.mode == agents::OutputMode::Reason && c.reasoning_marker.empty())
    ctx.diag.error(f.mark("reasoning_marker"),
                   fmt::format("agent '{}' in reason mode needs a reasoning_marker", agent));
}

// Whether `command` names an executable: a path (with '/') or a name found on PATH or in the
// games folders, where the UCI agent also looks (Debian installs engines in /usr/games).
bool command_found(const std::string& command, LoadContext& ctx) {
  if (command.find('/') != std::string::npos) return ::access(command.c_str(), X_OK) == 0;
  const auto path = ctx.options.get_env ? ctx.options.get_env("PATH") : std::nullopt;
  std::stringstream dirs(path.value_or("/usr/local/bin:/usr/bin:/bin") + ":/usr/games:/usr/local/games");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((std::filesystem::path(dir) / command).c_str(), X_OK) == 0) return true;
  return false;
}

void read_uci(FieldReader& f, LoadContext& ctx, const std::string& agent, agents::UciAgentConfig& c,
              AgentMarks& marks) {
  f.read("command", c.command);
  marks.command = f.mark("command");
  if (!f.has("command") || c.command.empty()) {
    ctx.diag.error(f.mark(), fmt::format("uci agent '{}' needs a command (the engine's executable, e.g. "
                                         "/usr/games/stockfish)",
                                         agent));
  } else {
    // A path with a folder resolves against the config file's folder; a bare name is looked up on PATH.
    const std::string expanded = ctx.path(c.command, marks.command, /*resolve=*/false);
    c.command = expanded.find('/') != std::string::npos ? ctx.path(expanded, marks.command) : expanded;
    if (ctx.options.check_files && !c.command.empty() && !command_found(c.command, ctx))
      ctx.diag.error(
          marks.command,
          fmt::format("UCI engine '{}' not found{}", c.command,
                      c.command.find('/') == std::string::npos ? " on PATH or in /usr/games" : ""));
  }
  f.read_list("args", c.args);
  if (const YamlNode* options = f.get("options")) {
    if (!options->is_map() && !options->is_null()) {
      ctx.diag.error(options->mark, fmt::format("options must map UCI option names to values, got {}",
                                                options->kind_name()));
    } else {
      for (const auto& e : options->entries) {
        if (!e.key.is_scalar() || !(e.value.is_scalar() || e.value.is_null())) {
          ctx.diag.error(e.key.mark, "a UCI option is `Name: value`");
          continue;
        }
        if (auto problem = agents::uci_option_problem(e.key.scalar, e.value.scalar)) {
          ctx.diag.error(e.key.mark, *problem);
          continue;
        }
        c.options[e.key.scalar] = e.value.scalar;
      }
    }
  }
  f.read("skill_level", c.skill_level, 0, 20);
  f.read("elo", c.elo, 0, 4000);
  f.read("threads", c.threads, 1, 1024);
  uint64_t hash_bytes = static_cast<uint64_t>(c.hash_mb) << 20;
  f.read_memory("hash", hash_bytes, uint64_t{1} << 20);
  if (hash_bytes % (uint64_t{1} << 20) != 0)
    ctx.diag.error(f.mark("hash"), "hash must be a whole number of MiB");
  c.hash_mb = static_cast<int32_t>(std::min<uint64_t>(hash_bytes >> 20, 1 << 20));
  f.read_duration("movetime", c.movetime, std::chrono::milliseconds(1));
  f.read("depth", c.depth, 1, 1000);
  f.read("nodes", c.nodes, 1, INT64_MAX);
  f.read_duration("startup_timeout", c.startup_timeout, std::chrono::milliseconds(100));
  f.read_duration("move_margin", c.move_margin, std::chrono::milliseconds(0));
}

void read_search(FieldReader& f, agents::SearchAgentConfig& c) {
  f.read("depth", c.depth, 1, 64);
  f.read("nodes", c.nodes, 1, INT64_MAX);
  f.read_duration("movetime", c.movetime, std::chrono::milliseconds(1));
  f.read("seed", c.seed);
}

void read_random(FieldReader& f, agents::RandomAgentConfig& c) {
  f.read("seed", c.seed);
}

// Reads the fields of `type` with `f`.
void read_type_fields(const std::string& type, FieldReader& f, LoadContext& ctx, AgentConfig& a,
                      AgentMarks& marks) {
  if (type == "llm") {
    read_llm(f, ctx, a.name, a.params.emplace<agents::LlmAgentConfig>(), marks);
  } else if (type == "uci") {
    read_uci(f, ctx, a.name, a.params.emplace<agents::UciAgentConfig>(), marks);
  } else if (type == "search") {
    read_search(f, a.params.emplace<agents::SearchAgentConfig>());
  } else {
    read_random(f, a.params.emplace<agents::RandomAgentConfig>());
  }
}

// The keys of each agent type (read from an empty mapping, so they never drift from the readers).
const std::vector<std::vector<std::string>>& type_keys(const LoadOptions& options) {
  static const auto keys = [&] {
    std::vector<std::vector<std::string>> out;
    for (const auto& type : kTypes) {
      Diagnostics scratch("");
      LoadContext ctx{scratch, {}, options, {}};
      FieldReader f(nullptr, "", scratch);
      AgentConfig a;
      AgentMarks m;
      read_type_fields(type, f, ctx, a, m);
      out.push_back(f.known());
    }
    return out;
  }();
  return keys;
}

void read_agent(const YamlNode& node, size_t index, LoadContext& ctx, AgentConfig& a, AgentMarks& marks) {
  FieldReader f(&node, fmt::format("agents[{}]", index), ctx.diag);
  marks.entry = node.mark;
  f.read("name", a.name);
  marks.name = f.mark("name");
  if (a.name.empty()) ctx.diag.error(node.mark, fmt::format("agents[{}] needs a name", index));
  if (!a.name.empty()) f.set_what(fmt::format("agent '{}'", a.name));
  std::string type;
  f.read("type", type);
  marks.type = f.mark("type");
  f.read_list("variants", a.variants);
  marks.variants = f.mark("variants");
  if (const YamlNode* v = f.get("variants"); v && v->is_sequence())
    for (const auto& item : v->items) marks.variant_items.push_back(item.mark);
  else
    marks.variant_items.assign(a.variants.size(), marks.variants);

  const bool known_type = std::find(kTypes.begin(), kTypes.end(), type) != kTypes.end();
  if (!f.has("type")) {
    ctx.diag.error(node.mark, fmt::format("{} needs a type: {}", f.what(), join_names(kTypes)));
  } else if (!known_type) {
    ctx.diag.error(marks.type, fmt::format("unknown agent type '{}'{}; expected one of: {}", type,
                                           did_you_mean(type, kTypes), join_names(kTypes)));
  }
  if (!known_type) return;  // the other keys cannot be judged without a type
  read_type_fields(type, f, ctx, a, marks);
  const auto& keys = type_keys(ctx.options);
  f.finish([&](const std::string& key) -> std::optional<std::string> {
    std::vector<std::string> owners;
    for (size_t t = 0; t < kTypes.size(); ++t)
      if (kTypes[t] != type && std::find(keys[t].begin(), keys[t].end(), key) != keys[t].end())
        owners.push_back(kTypes[t]);
    if (owners.empty()) return std::nullopt;
    std::string list = owners.front();
    for (size_t i = 1; i < owners.size(); ++i) list += (i + 1 == owners.size() ? " and " : ", ") + owners[i];
    return fmt::format("'{}' is a field of {} agents, not of {} agents ({} has type {})", key, list, type,
                       f.what(), type);
  });
}

}  // namespace

void read_agents(const YamlNode* node, LoadContext& ctx, Config& config, Marks& marks) {
  if (!node || node->is_null()) return;
  if (!node->is_sequence()) {
    ctx.diag.error(node->mark,
                   fmt::format("agents must be a list of agents (- name: ...), got {}", node->kind_name()));
    return;
  }
  for (size_t i = 0; i < node->items.size(); ++i) {
    AgentConfig a;
    AgentMarks am;
    read_agent(node->items[i], i, ctx, a, am);
    config.agents.push_back(std::move(a));
    marks.agents.push_back(std::move(am));
  }
}

}  // namespace arena::config
