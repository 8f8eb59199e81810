// Writing the resolved config, hashing it and diffing two of them. The tree built here mirrors
// the loader's keys exactly (the resolved file loads back to the same Config).
#include "arena/config/resolved.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "arena/config/units.h"

namespace arena::config {
namespace {

using Node = YamlNode;

Node str(const std::string& s) {
  return Node::string(s);
}
template <typename T>
Node num(T v) {
  return Node::plain(fmt::format("{}", v));
}
Node boolean(bool b) {
  return Node::plain(b ? "true" : "false");
}
Node duration(std::chrono::milliseconds d) {
  return Node::plain(format_duration(d));
}
template <typename T>
Node opt(const std::optional<T>& v) {
  return v ? num(*v) : Node::null();
}
Node opt_duration(const std::optional<std::chrono::milliseconds>& d) {
  return d ? duration(*d) : Node::null();
}
Node list(const std::vector<std::string>& names) {
  Node n = Node::sequence();
  for (const auto& s : names) n.push(str(s));
  return n;
}

Node model_tree(const ModelConfig& m) {
  Node n = Node::map();
  const auto& s = m.engine.scheduler;
  const auto& c = m.engine.cache;
  n.add("name", str(m.name)).add("path", str(m.path)).add("chat_template", str(m.chat_template));
  n.add("threads", num(m.threads)).add("batching", Node::plain(engine::to_string(s.mode)));
  n.add("max_num_seqs", num(s.max_num_seqs)).add("max_num_batched_tokens", num(s.max_num_batched_tokens));
  n.add("max_prefill_tokens", num(s.max_prefill_tokens));
  n.add("max_queue", num(s.max_queue)).add("block_size", num(c.block_size));
  n.add("kv_dtype", Node::plain(engine::to_string(c.dtype)));
  n.add("kv_cache_size", Node::plain(format_memory_size(c.kv_cache_bytes)));
  n.add("kv_memory_fraction", num(c.kv_memory_fraction)).add("prefix_cache", boolean(c.enable_prefix_cache));
  return n;
}

void llm_fields(Node& n, const agents::LlmAgentConfig& c) {
  n.add("model", str(c.model)).add("backend", Node::plain(agents::to_string(c.backend)));
  if (c.backend == agents::BackendKind::OpenAi) {
    const auto& o = c.openai;
    Node on = Node::map();
    if (o.endpoints.empty()) {
      on.add("base_url", str(o.base_url));
    } else {
      Node list = Node::sequence();
      for (const auto& e : o.endpoints) {
        Node item = Node::map();
        item.add("url", str(e.base_url)).add("weight", num(e.weight)).add("api_key_env", str(e.api_key_env));
        list.push(std::move(item));
      }
      on.add("endpoints", std::move(list)).add("routing", Node::plain(agents::to_string(o.routing)));
      on.add("routing_seed", num(o.routing_seed));
    }
    on.add("session_header", str(o.session_header));
    on.add("model", str(o.model)).add("api_key_env", str(o.api_key_env));
    on.add("endpoint", Node::plain(agents::to_string(o.endpoint)));
    on.add("constraint", Node::plain(agents::to_string(o.constraint)));
    on.add("timeout", duration(o.timeout)).add("max_concurrency", num(o.max_concurrency));
    on.add("max_retries", num(o.max_retries)).add("backoff", duration(o.backoff));
    n.add("openai", std::move(on));
  }
  n.add("system_prompt", str(c.system_prompt)).add("move_template", str(c.move_template));
  n.add("notation", c.notation ? Node::plain(agents::to_string(*c.notation)) : Node::null());
  n.add("mode", Node::plain(agents::to_string(c.mode)))
      .add("history", Node::plain(agents::to_string(c.history)));
  const engine::SamplingParams& s = c.sampling;
  n.add("chat", boolean(c.chat)).add("temperature", num(s.temperature)).add("top_k", num(s.top_k));
  n.add("top_p", num(s.top_p)).add("min_p", num(s.min_p)).add("seed", opt(s.seed));
  n.add("max_tokens", num(s.max_tokens)).add("max_retries", num(c.max_retries));
  n.add("on_failure", Node::plain(agents::to_string(c.on_failure)));
  n.add("reasoning_tokens", num(c.reasoning_tokens)).add("reasoning_marker", str(c.reasoning_marker));
}

void uci_fields(Node& n, const agents::UciAgentConfig& c) {
  n.add("command", str(c.command)).add("args", list(c.args));
  Node options = Node::map();
  for (const auto& [k, v] : c.options) options.add(k, str(v));
  n.add("options", std::move(options));
  n.add("skill_level", opt(c.skill_level)).add("elo", opt(c.elo)).add("threads", num(c.threads));
  n.add("hash", Node::plain(format_memory_size(static_cast<uint64_t>(c.hash_mb) << 20)));
  n.add("movetime", opt_duration(c.movetime)).add("depth", opt(c.depth)).add("nodes", opt(c.nodes));
  n.add("startup_timeout", duration(c.startup_timeout)).add("move_margin", duration(c.move_margin));
}

Node agent_tree(const agents::AgentConfig& a) {
  Node n = Node::map();
  n.add("name", str(a.name)).add("type", Node::plain(a.type())).add("variants", list(a.variants));
  if (const auto* llm = std::get_if<agents::LlmAgentConfig>(&a.params)) llm_fields(n, *llm);
  if (const auto* uci = std::get_if<agents::UciAgentConfig>(&a.params)) uci_fields(n, *uci);
  if (const auto* s = std::get_if<agents::SearchAgentConfig>(&a.params))
    n.add("depth", opt(s->depth))
        .add("nodes", opt(s->nodes))
        .add("movetime", opt_duration(s->movetime))
        .add("seed", num(s->seed));
  if (const auto* r = std::get_if<agents::RandomAgentConfig>(&a.params)) n.add("seed", num(r->seed));
  return n;
}

Node tournament_tree(const TournamentConfig& t) {
  Node n = Node::map();
  n.add("games", list(t.games)).add("format", Node::plain(to_string(t.format)));
  n.add("gauntlet_seed", str(t.gauntlet_seed_agent)).add("agents", list(t.agents));
  n.add("games_per_pairing", num(t.games_per_pairing));
  Node openings = Node::map();
  openings.add("file", str(t.openings.file)).add("order", Node::plain(to_string(t.openings.order)));
  openings.add("plies", num(t.openings.plies)).add("janggi_setups", boolean(t.openings.janggi_setups));
  n.add("openings", std::move(openings));
  n.add("concurrency", num(t.concurrency))
      .add("tick", duration(t.tick))
      .add("move_deadline", duration(t.move_deadline));
  n.add("deadline_policy", Node::plain(to_string(t.deadline_policy)));
  if (t.clock) {
    Node clock = Node::map();
    clock.add("base", duration(t.clock->base)).add("increment", duration(t.clock->increment));
    n.add("clock", std::move(clock));
  } else {
    n.add("clock", Node::null());
  }
  const AdjudicationConfig& a = t.adjudication;
  Node adj = Node::map();
  adj.add("max_plies", num(a.max_plies)).add("referee", str(a.referee));
  if (a.draw_move_number) {
    Node draw = Node::map();
    draw.add("move_number", num(*a.draw_move_number)).add("move_count", num(a.draw_move_count));
    draw.add("score", num(a.draw_score_cp));
    adj.add("draw", std::move(draw));
  } else {
    adj.add("draw", Node::null());
  }
  if (a.resign_move_count) {
    Node resign = Node::map();
    resign.add("move_count", num(*a.resign_move_count)).add("score", num(a.resign_score_cp));
    adj.add("resign", std::move(resign));
  } else {
    adj.add("resign", Node::null());
  }
  adj.add("janggi_counting", boolean(a.janggi_counting));
  n.add("adjudication", std::move(adj));
  if (t.sprt) {
    Node sprt = Node::map();
    sprt.add("elo0", num(t.sprt->elo0)).add("elo1", num(t.sprt->elo1));
    sprt.add("alpha", num(t.sprt->alpha)).add("beta", num(t.sprt->beta));
    n.add("sprt", std::move(sprt));
  } else {
    n.add("sprt", Node::null());
  }
  n.add("seed", num(t.seed));
  return n;
}

// The name of a list item that is a mapping with a `name`, or "".
std::string item_name(const Node& n) {
  if (!n.is_map()) return "";
  for (const auto& e : n.entries)
    if (e.key.scalar == "name" && e.value.is_scalar()) return e.value.scalar;
  return "";
}

// Every leaf of `n` as (dotted path, value); named list items are addressed by name.
void flatten(const Node& n, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
  switch (n.kind) {
    case Node::Kind::Null:
      out.emplace_back(path, "null");
      break;
    case Node::Kind::Scalar:
      out.emplace_back(path, n.quoted ? fmt::format("\"{}\"", n.scalar) : n.scalar);
      break;
    case Node::Kind::Sequence:
      if (n.items.empty()) out.emplace_back(path, "[]");
      for (size_t i = 0; i < n.items.size(); ++i) {
        const std::string name = item_name(n.items[i]);
        flatten(n.items[i], name.empty() ? fmt::format("{}[{}]", path, i) : fmt::format("{}.{}", path, name),
                out);
      }
      break;
    case Node::Kind::Map:
      if (n.entries.empty()) out.emplace_back(path, "{}");
      for (const auto& e : n.entries)
        flatten(e.value, path.empty() ? e.key.scalar : path + "." + e.key.scalar, out);
      break;
  }
}

std::vector<std::pair<std::string, std::string>> flat(const Config& c) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten(to_yaml_tree(c), "", out);
  return out;
}

}  // namespace

YamlNode to_yaml_tree(const Config& config) {
  Node root = Node::map();
  Node models = Node::sequence();
  for (const auto& m : config.models) models.push(model_tree(m));
  Node agents = Node::sequence();
  for (const auto& a : config.agents) agents.push(agent_tree(a));
  root.add("models", std::move(models)).add("agents", std::move(agents));
  root.add("tournament", tournament_tree(config.tournament));
  Node anchors = Node::map();
  for (const auto& [agent, rating] : config.ratings.anchors) anchors.add(agent, num(rating));
  Node ratings = Node::map();
  ratings.add("anchors", std::move(anchors)).add("mean", num(config.ratings.mean));
  ratings.add("first_move_advantage", config.ratings.first_move_advantage
                                          ? num(*config.ratings.first_move_advantage)
                                          : Node::plain("fit"));
  ratings.add("simulations", num(config.ratings.simulations))
      .add("confidence", num(config.ratings.confidence));
  root.add("ratings", std::move(ratings));
  Node output = Node::map();
  output.add("dir", str(config.output.dir));
  Node web = Node::map();
  web.add("bind", str(config.web.bind)).add("port", num(config.web.port));
  web.add("allowed_hosts", list(config.web.allowed_hosts))
      .add("allowed_origins", list(config.web.allowed_origins));
  root.add("output", std::move(output)).add("web", std::move(web));
  return root;
}

std::string resolved_yaml(const Config& config) {
  return fmt::format(
      "# The resolved config of {}: every field with its value, defaults filled in\n"
      "# (written by arena run; `arena run` accepts this file too). docs/config.md explains each field.\n{}",
      config.source_path, emit_yaml(to_yaml_tree(config)));
}

bool affects_results(const std::string& field) {
  return !(field.starts_with("output.") || field.starts_with("web.") || field.starts_with("ratings.") ||
           field == "tournament.concurrency");
}

std::string config_hash(const Config& config) {
  uint64_t h = 14695981039346656037ull;
  const auto mix = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  for (const auto& [field, value] : flat(config)) {
    if (!affects_results(field)) continue;
    mix(field);
    mix("=");
    mix(value);
    mix("\n");
  }
  return fmt::format("{:016x}", h);
}

std::vector<FieldDiff> diff_configs(const Config& before, const Config& after, bool results_only) {
  const auto a = flat(before), b = flat(after);
  std::vector<FieldDiff> out;
  const auto find = [](const auto& fields, const std::string& key) {
    return std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == key; });
  };
  for (const auto& [field, value] : a) {
    if (results_only && !affects_results(field)) continue;
    const auto it = find(b, field);
    if (it == b.end())
      out.push_back({field, value, "(absent)"});
    else if (it->second != value)
      out.push_back({field, value, it->second});
  }
  for (const auto& [field, value] : b)
    if ((!results_only || affects_results(field)) && find(a, field) == a.end())
      out.push_back({field, "(absent)", value});
  return out;
}

std::string format_diff(const std::vector<FieldDiff>& diffs) {
  std::string out;
  for (const auto& d : diffs) {
    const auto shorten = [](const std::string& s) { return s.size() > 60 ? s.substr(0, 57) + "..." : s; };
    out += fmt::format("  {}: {} -> {}\n", d.field, shorten(d.before), shorten(d.after));
  }
  return out;
}

}  // namespace arena::config
