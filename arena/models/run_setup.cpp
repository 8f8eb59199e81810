// Building a run's models, participants and engine sources from the config.
#include "arena/models/run_setup.h"

#include <algorithm>
#include <set>

namespace arena::models {

std::vector<config::ModelConfig> models_in_use(const config::Config& config) {
  const auto& playing = config.tournament.agents;
  std::set<std::string> names;
  for (const auto& a : config.agents) {
    const auto* llm = std::get_if<agents::LlmAgentConfig>(&a.params);
    if (llm && llm->backend == agents::BackendKind::Engine &&
        std::find(playing.begin(), playing.end(), a.name) != playing.end())
      names.insert(llm->model);
  }
  std::vector<config::ModelConfig> out;
  for (const auto& m : config.models)
    if (names.count(m.name)) out.push_back(m);
  return out;
}

std::expected<std::unique_ptr<RunSetup>, std::string> prepare_run(const config::Config& config,
                                                                  agents::EnvReader get_env) {
  auto setup = std::make_unique<RunSetup>();
  auto registry = ModelRegistry::open(models_in_use(config));
  if (!registry) return std::unexpected(registry.error());
  setup->registry = std::move(*registry);
  setup->env = setup->registry->environment(std::move(get_env));
  const agents::AgentEnvironment* env = &setup->env;
  for (const auto& name : config.tournament.agents) {
    const auto it = std::find_if(config.agents.begin(), config.agents.end(),
                                 [&](const auto& a) { return a.name == name; });
    if (it == config.agents.end())
      return std::unexpected("participant '" + name + "' is not an agent of the config");
    tournament::Participant p;
    p.name = it->name;
    p.variants = it->variants;
    p.make = [agent = *it, env] { return agents::make_agent(agent, *env); };
    setup->participants.push_back(std::move(p));
  }
  for (const auto& b : setup->registry->bindings()) setup->engines.push_back({b.name, b.engine});
  return setup;
}

}  // namespace arena::models
