// make_agent(): builds the agent an AgentConfig describes, by its type (llm, uci, search, random).
#include <variant>

#include "agents/agent_config.h"
#include "agents/agent_support.h"
#include "agents/llm/llm_agent.h"
#include "agents/random/random_agent.h"
#include "agents/search/search.h"
#include "agents/search/search_agent.h"
#include "agents/uci/uci_agent.h"

namespace agents {

std::expected<std::unique_ptr<Agent>, AgentError> make_agent(const AgentConfig& config,
                                                             const AgentEnvironment& env) {
  if (config.name.empty()) return std::unexpected(AgentError{"an agent needs a name"});
  for (const auto& variant : config.variants)
    if (!variant_allowed({}, variant))
      return std::unexpected(
          AgentError{"agent '" + config.name + "': unknown game variant '" + variant + "'"});

  if (std::holds_alternative<LlmAgentConfig>(config.params)) return make_llm_agent(config, env);
  if (std::holds_alternative<UciAgentConfig>(config.params)) return make_uci_agent(config, env);
  if (const auto* search = std::get_if<SearchAgentConfig>(&config.params)) {
    if (search->depth && (*search->depth < 1 || *search->depth > 64))
      return std::unexpected(AgentError{"agent '" + config.name + "': search depth must be 1..64"});
    if (search->nodes && *search->nodes < 1)
      return std::unexpected(AgentError{"agent '" + config.name + "': search nodes must be positive"});
    if (search->movetime && search->movetime->count() < 1)
      return std::unexpected(AgentError{"agent '" + config.name + "': search movetime must be positive"});
    for (const auto& variant : config.variants)
      if (!search::search_supports(variant))
        return std::unexpected(
            AgentError{"agent '" + config.name + "': the search does not play " + variant});
    return std::make_unique<SearchAgent>(config.name, config.variants, *search);
  }
  const auto& random = std::get<RandomAgentConfig>(config.params);
  return std::make_unique<RandomAgent>(config.name, config.variants, random.seed);
}

}  // namespace agents
