// Cross-reference checks over the whole config and the defaults that depend on other sections:
// models of LLM agents (the default model), the variants each agent plays, the participants,
// the gauntlet seed, the referee, SPRT's two players. Every problem points at its line.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "arena/config/sections.h"
#include "games/game.h"

namespace arena::config {
namespace {

bool is_janggi_variant(const std::string& v) {
  return v.starts_with("janggi");
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("-_.+:@").find(c) != std::string_view::npos;
  });
}

// The variants an agent of this type and these settings can play (before `variants:` narrows them).
std::vector<std::string> supported_variants(const agents::AgentConfig& a) {
  const auto all = games::game_variants();
  std::vector<std::string> out;
  if (const auto* llm = std::get_if<agents::LlmAgentConfig>(&a.params); llm && llm->notation) {
    for (const auto& v : all)
      if (*llm->notation == agents::Notation::Uci ||
          (*llm->notation == agents::Notation::San) == !is_janggi_variant(v))
        out.push_back(v);
    return out;
  }
  // A UCI engine says nothing about variants before it runs: chess unless the config lists more.
  if (std::holds_alternative<agents::UciAgentConfig>(a.params))
    return a.variants.empty() ? std::vector<std::string>{"chess"} : a.variants;
  return all;
}

// Why `a` cannot play `variant` (its settings rule it out), or "".
std::string why_unsupported(const agents::AgentConfig& a, const std::string& variant) {
  const auto* llm = std::get_if<agents::LlmAgentConfig>(&a.params);
  if (!llm || !llm->notation) return "";
  if (*llm->notation == agents::Notation::San && is_janggi_variant(variant))
    return "it writes moves in SAN (chess notation); use notation korean or uci for janggi";
  if (*llm->notation == agents::Notation::Korean && !is_janggi_variant(variant))
    return "it writes moves in Korean notation (janggi only); use notation san or uci for chess";
  return "";
}

void check_models(LoadContext& ctx, Config& config, const Marks& marks) {
  std::set<std::string> seen;
  for (size_t i = 0; i < config.models.size(); ++i) {
    ModelConfig& m = config.models[i];
    const ModelMarks& mm = marks.models[i];
    if (!m.name.empty() && !valid_name(m.name))
      ctx.diag.error(mm.name,
                     fmt::format("model name '{}' may use only letters, digits and - _ . + : @", m.name));
    if (!m.name.empty() && !seen.insert(m.name).second)
      ctx.diag.error(mm.name, fmt::format("a second model named '{}'", m.name));
    if (!mm.path_given) {
      if (ctx.options.default_model_path.empty()) {
        ctx.diag.error(mm.entry, fmt::format("model '{}' needs a path (a GGUF file)", m.name));
        continue;
      }
      m.path = ctx.options.default_model_path;
    }
    std::error_code ec;
    if (ctx.options.check_files && !m.path.empty() && !std::filesystem::is_regular_file(m.path, ec))
      ctx.diag.error(mm.path_given ? mm.path : mm.entry,
                     mm.path_given
                         ? fmt::format("model file '{}' not found", m.path)
                         : fmt::format("the default model '{}' does not exist yet: scripts/quickstart.sh "
                                       "makes it, or give this model a path",
                                       m.path));
  }
}

void check_agents(LoadContext& ctx, Config& config, const Marks& marks) {
  if (config.agents.empty())
    ctx.diag.error(marks.tournament.section, "the config has no agents (add an `agents:` list)");
  // LLM agents on the in-process engine need a model; with no `models:` at all, the default one.
  const bool needs_model = std::any_of(config.agents.begin(), config.agents.end(), [](const auto& a) {
    const auto* llm = std::get_if<agents::LlmAgentConfig>(&a.params);
    return llm && llm->backend == agents::BackendKind::Engine;
  });
  if (needs_model && config.models.empty() && !ctx.options.default_model_path.empty()) {
    ModelConfig m;
    m.name = "default";
    m.path = ctx.options.default_model_path;
    std::error_code ec;
    if (ctx.options.check_files && !std::filesystem::is_regular_file(m.path, ec))
      ctx.diag.error({1, 1},
                     fmt::format("the config has no `models:` and the default model '{}' does not exist yet "
                                 "(scripts/quickstart.sh makes it)",
                                 m.path));
    config.models.push_back(std::move(m));
  }
  std::vector<std::string> model_names;
  for (const auto& m : config.models) model_names.push_back(m.name);
  const auto variants = games::game_variants();

  std::set<std::string> seen;
  for (size_t i = 0; i < config.agents.size(); ++i) {
    agents::AgentConfig& a = config.agents[i];
    const AgentMarks& am = marks.agents[i];
    if (!a.name.empty() && !valid_name(a.name))
      ctx.diag.error(
          am.name,
          fmt::format("agent name '{}' may use only letters, digits and - _ . + : @ (at most 64)", a.name));
    if (!a.name.empty() && !seen.insert(a.name).second)
      ctx.diag.error(am.name, fmt::format("a second agent named '{}'", a.name));
    for (size_t v = 0; v < a.variants.size(); ++v) {
      const SourceMark at = v < am.variant_items.size() ? am.variant_items[v] : am.variants;
      if (std::find(variants.begin(), variants.end(), a.variants[v]) == variants.end())
        ctx.diag.error(at, fmt::format("unknown game variant '{}'{}; known: {}", a.variants[v],
                                       did_you_mean(a.variants[v], variants), join_names(variants)));
      else if (const auto why = why_unsupported(a, a.variants[v]); !why.empty())
        ctx.diag.error(at, fmt::format("agent '{}' cannot play {}: {}", a.name, a.variants[v], why));
    }
    if (auto* llm = std::get_if<agents::LlmAgentConfig>(&a.params);
        llm && llm->backend == agents::BackendKind::Engine) {
      if (llm->model.empty()) {
        if (config.models.empty())
          ctx.diag.error(am.entry, fmt::format("agent '{}' needs a model: add one under `models:`", a.name));
        else
          llm->model = config.models.front().name;
      } else if (std::find(model_names.begin(), model_names.end(), llm->model) == model_names.end()) {
        ctx.diag.error(am.model,
                       fmt::format("agent '{}' names model '{}', which `models:` does not define{}{}", a.name,
                                   llm->model, did_you_mean(llm->model, model_names),
                                   model_names.empty() ? "" : "; known: " + join_names(model_names)));
      }
    }
    if (const auto* uci = std::get_if<agents::UciAgentConfig>(&a.params))
      if (!uci->movetime && !uci->depth && !uci->nodes && !config.tournament.clock)
        ctx.diag.error(am.entry,
                       fmt::format("uci agent '{}' has no limit per move: set movetime, depth or nodes, or "
                                   "give the tournament a clock",
                                   a.name));
    if (const auto* search = std::get_if<agents::SearchAgentConfig>(&a.params))
      if (!search->movetime && !search->depth && !search->nodes)
        ctx.diag.error(am.entry,
                       fmt::format("search agent '{}' has no limit: set depth, nodes or movetime", a.name));
  }
}

// tournament.games: known variants, each once.
void check_games(LoadContext& ctx, const TournamentConfig& t, const TournamentMarks& tm) {
  const auto variants = games::game_variants();
  if (t.games.empty()) ctx.diag.error(tm.games, "tournament.games needs at least one game");
  std::set<std::string> seen_games;
  for (size_t i = 0; i < t.games.size(); ++i) {
    const SourceMark at = i < tm.game_items.size() ? tm.game_items[i] : tm.games;
    if (std::find(variants.begin(), variants.end(), t.games[i]) == variants.end())
      ctx.diag.error(at, fmt::format("unknown game '{}'{}; known: {}", t.games[i],
                                     did_you_mean(t.games[i], variants), join_names(variants)));
    else if (!seen_games.insert(t.games[i]).second)
      ctx.diag.error(at, fmt::format("game '{}' is listed twice", t.games[i]));
  }
}

// adjudication.referee: one of the uci agents, needed by the draw and resign rules.
void check_referee(LoadContext& ctx, Config& config, const Marks& marks,
                   const std::vector<std::string>& agent_names) {
  const TournamentMarks& tm = marks.tournament;
  AdjudicationConfig& adj = config.tournament.adjudication;
  if (!adj.referee.empty()) {
    const auto it = std::find(agent_names.begin(), agent_names.end(), adj.referee);
    if (it == agent_names.end())
      ctx.diag.error(tm.referee, fmt::format("unknown referee '{}'{}: it must be one of the uci agents",
                                             adj.referee, did_you_mean(adj.referee, agent_names)));
    else if (const auto& agent = config.agents[static_cast<size_t>(it - agent_names.begin())];
             !std::holds_alternative<agents::UciAgentConfig>(agent.params))
      ctx.diag.error(tm.referee,
                     fmt::format("referee '{}' must be a uci agent (it scores positions)", adj.referee));
    else
      adj.referee_agent = agent;
  }
  if (adj.referee.empty() && adj.draw_move_number)
    ctx.diag.error(tm.draw, "draw adjudication needs a referee (adjudication.referee: a uci agent)");
  if (adj.referee.empty() && adj.resign_move_count)
    ctx.diag.error(tm.resign, "resign adjudication needs a referee (adjudication.referee: a uci agent)");
}

void check_tournament(LoadContext& ctx, Config& config, const Marks& marks) {
  TournamentConfig& t = config.tournament;
  const TournamentMarks& tm = marks.tournament;
  check_games(ctx, t, tm);

  std::vector<std::string> agent_names;
  for (const auto& a : config.agents) agent_names.push_back(a.name);
  const bool explicit_participants = !t.agents.empty();
  if (!explicit_participants) t.agents = agent_names;
  std::set<std::string> seen;
  for (size_t i = 0; i < t.agents.size(); ++i) {
    const std::string& name = t.agents[i];
    const auto it = std::find(agent_names.begin(), agent_names.end(), name);
    const size_t index = static_cast<size_t>(it - agent_names.begin());
    const SourceMark at = explicit_participants ? (i < tm.agent_items.size() ? tm.agent_items[i] : tm.agents)
                                                : marks.agents[index < marks.agents.size() ? index : 0].entry;
    if (it == agent_names.end()) {
      ctx.diag.error(at, fmt::format("unknown participant '{}'{}; the agents are: {}", name,
                                     did_you_mean(name, agent_names), join_names(agent_names)));
      continue;
    }
    if (!seen.insert(name).second) {
      ctx.diag.error(at, fmt::format("participant '{}' is listed twice", name));
      continue;
    }
    agents::AgentConfig& a = config.agents[index];
    const auto supported = supported_variants(a);
    std::vector<std::string> playable;
    for (const auto& g : t.games)
      if (std::find(supported.begin(), supported.end(), g) != supported.end() &&
          (a.variants.empty() || std::find(a.variants.begin(), a.variants.end(), g) != a.variants.end()))
        playable.push_back(g);
    if (playable.empty() && !t.games.empty()) {
      std::string why;
      for (const auto& g : t.games)
        if (why.empty()) why = why_unsupported(a, g);
      const auto& plays = a.variants.empty() ? supported : a.variants;
      ctx.diag.error(
          at, fmt::format("agent '{}' plays none of this tournament's games (it plays: {}; the tournament: "
                          "{}){}{}",
                          name, join_names(plays), join_names(t.games), why.empty() ? "" : ": ", why));
    }
    if (a.variants.empty()) a.variants = playable;
  }
  // Agents that do not take part keep their own variants, filled in for the resolved config. The
  // referee, though, is asked about every game: its engine says which it plays (UCI_Variant) when
  // it runs, so it is not narrowed to chess as a UCI player without `variants:` is.
  for (auto& a : config.agents)
    if (a.variants.empty())
      a.variants =
          a.name == t.adjudication.referee && std::holds_alternative<agents::UciAgentConfig>(a.params)
              ? t.games
              : supported_variants(a);

  if (t.agents.size() < 2 && !config.agents.empty())
    ctx.diag.error(explicit_participants ? tm.agents : tm.section,
                   fmt::format("a tournament needs at least two participants, got {}", t.agents.size()));

  if (t.format == Format::Gauntlet) {
    if (t.gauntlet_seed_agent.empty() && !t.agents.empty()) t.gauntlet_seed_agent = t.agents.front();
    if (std::find(t.agents.begin(), t.agents.end(), t.gauntlet_seed_agent) == t.agents.end())
      ctx.diag.error(tm.gauntlet_seed,
                     fmt::format("gauntlet_seed '{}' is not a participant{}", t.gauntlet_seed_agent,
                                 did_you_mean(t.gauntlet_seed_agent, t.agents)));
  } else if (!t.gauntlet_seed_agent.empty()) {
    ctx.diag.warning(tm.gauntlet_seed, "gauntlet_seed is ignored: the format is not gauntlet");
  }

  check_referee(ctx, config, marks, agent_names);
  if (t.sprt && t.agents.size() != 2)
    ctx.diag.error(tm.sprt, fmt::format("sprt needs exactly two participants, got {}", t.agents.size()));
  if (t.openings.janggi_setups &&
      std::none_of(t.games.begin(), t.games.end(), [](const auto& g) { return is_janggi_variant(g); }))
    ctx.diag.warning(tm.janggi_setups, "janggi_setups has no effect: the tournament plays no janggi");
}

}  // namespace

void check_config(LoadContext& ctx, Config& config, const Marks& marks) {
  check_models(ctx, config, marks);
  check_agents(ctx, config, marks);
  check_tournament(ctx, config, marks);
  if (config.output.dir.empty()) ctx.diag.error(marks.output_dir, "output.dir must not be empty");
  if (config.web.bind.empty()) ctx.diag.error(marks.web_bind, "web.bind must not be empty (e.g. 127.0.0.1)");
}

}  // namespace arena::config
