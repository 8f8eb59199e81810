// make_llm_agent: checks an LlmAgentConfig (prompts, notation, mode settings, model or server) and
// builds the LlmPlayer over its backend.
#include "agents/llm/llm_agent.h"

#include <fmt/format.h>

#include "agents/backend/engine_backend.h"
#include "agents/backend/fleet.h"
#include "agents/backend/openai_backend.h"
#include "agents/backend/shared_backends.h"
#include "agents/llm/default_prompts.h"
#include "agents/llm/llm_player.h"
#include "agents/llm/position_text.h"

namespace agents {

namespace {

std::unexpected<AgentError> error(const AgentConfig& config, std::string message) {
  return std::unexpected(AgentError{fmt::format("agent '{}': {}", config.name, message)});
}

// The game families (chess, janggi) the agent may play.
std::vector<std::string> families_of(const AgentConfig& config) {
  if (config.variants.empty()) return {"chess", "janggi"};
  std::vector<std::string> out;
  for (const auto& v : config.variants) {
    const std::string f = llm::game_family(v);
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

std::string source_name(const AgentConfig& config, const LlmAgentConfig& c, const char* what) {
  std::string out = fmt::format("{} of agent '{}'", what, config.name);
  if (!c.prompt_source.empty()) out += " (" + c.prompt_source + ")";
  return out;
}

}  // namespace

std::expected<std::unique_ptr<Agent>, AgentError> make_llm_agent(
    const AgentConfig& config, std::shared_ptr<backend::LlmBackend> backend) {
  const auto* cp = std::get_if<LlmAgentConfig>(&config.params);
  if (!cp) return error(config, "not an llm agent");
  const LlmAgentConfig& c = *cp;
  if (!backend) return error(config, "no backend");
  if (auto bad = engine::validate(c.sampling)) return error(config, bad->message);
  if (c.max_retries < 0)
    return error(config, fmt::format("max_retries must be 0 or more (got {})", c.max_retries));
  if (c.mode == OutputMode::Reason) {
    if (c.reasoning_tokens < 1)
      return error(config, fmt::format("reasoning_tokens must be at least 1 (got {})", c.reasoning_tokens));
    if (c.reasoning_marker.empty())
      return error(config, "reason mode needs a reasoning_marker (such as 'Move:')");
  }
  if (c.chat)
    if (auto why = backend->chat_unavailable())
      return error(config, *why + " (or set `chat: false` to send plain text)");
  for (const auto& v : config.variants) {
    auto game = games::make_game(v);
    if (!game) return error(config, game.error().message);
    if (c.notation && !llm::notation_fits(*c.notation, v))
      return error(config, fmt::format("notation {} cannot write {} moves (use {} or uci)",
                                       to_string(*c.notation), v, to_string(llm::default_notation(v))));
  }

  std::map<std::string, llm::PromptPair> prompts;
  for (const auto& family : families_of(config)) {
    const bool default_system = c.system_prompt.empty(), default_move = c.move_template.empty();
    auto system =
        llm::PromptTemplate::parse(default_system ? llm::default_system_prompt(family) : c.system_prompt,
                                   source_name(config, c, "system_prompt"), /*per_game_only=*/true);
    if (!system) return std::unexpected(AgentError{system.error()});
    auto move =
        llm::PromptTemplate::parse(default_move ? llm::default_move_template(family) : c.move_template,
                                   source_name(config, c, "move_template"));
    if (!move) return std::unexpected(AgentError{move.error()});
    prompts.emplace(family, llm::PromptPair{std::move(*system), std::move(*move)});
  }
  return std::make_unique<llm::LlmPlayer>(config.name, config.variants, c, std::move(prompts),
                                          std::move(backend));
}

std::expected<std::unique_ptr<Agent>, AgentError> make_llm_agent(const AgentConfig& config,
                                                                 const AgentEnvironment& env) {
  const auto* cp = std::get_if<LlmAgentConfig>(&config.params);
  if (!cp) return error(config, "not an llm agent");
  const LlmAgentConfig& c = *cp;
  std::shared_ptr<backend::LlmBackend> backend;
  if (c.backend == BackendKind::Engine) {
    const ModelBinding* binding = env.find_model ? env.find_model(c.model) : nullptr;
    if (c.model.empty())
      return error(config, "no model named (set `model:` to one of the tournament's models)");
    if (!binding || !binding->model || !binding->engine)
      return error(config, fmt::format("model '{}' is not one of the tournament's models", c.model));
    backend = std::make_shared<backend::EngineBackend>(*binding);
  } else {
    if (c.chat && c.openai.endpoint == Endpoint::Completions)
      return error(
          config,
          "endpoint completions sends the prompt as plain text: set `chat: false` (or use endpoint chat)");
    // The key of the server, or of each replica (its own variable, else the fleet's).
    std::vector<std::optional<std::string>> keys;
    const auto read_key = [&](const std::string& variable) -> std::optional<std::string> {
      if (variable.empty()) return std::nullopt;
      auto key = env.get_env ? env.get_env(variable) : std::nullopt;
      if (!key || key->empty()) return std::string();
      return key;
    };
    std::vector<std::string> variables;
    if (c.openai.endpoints.empty()) variables.push_back(c.openai.api_key_env);
    for (const auto& e : c.openai.endpoints)
      variables.push_back(e.api_key_env.empty() ? c.openai.api_key_env : e.api_key_env);
    for (const auto& variable : variables) {
      keys.push_back(read_key(variable));
      if (keys.back() && keys.back()->empty())
        return error(config, fmt::format("the environment variable {} (api_key_env) is not set", variable));
    }
    const auto make = [&] {
      return c.openai.endpoints.empty() ? backend::make_openai_backend(c.openai, keys.front())
                                        : backend::make_fleet_backend(c.openai, keys);
    };
    auto remote = env.shared_backends ? env.shared_backends->get(config.name, make) : make();
    if (!remote) return error(config, remote.error());
    backend = std::move(*remote);
  }
  return make_llm_agent(config, std::move(backend));
}

}  // namespace agents
