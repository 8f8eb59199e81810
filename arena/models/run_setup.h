// What a tournament run needs besides its TournamentConfig, made from a loaded Config: the
// models its LLM participants use (opened, one engine each), the participants (each makes its
// agents with agents::make_agent), and the engines whose metrics the runner samples. `arena run`
// and the end-to-end test build their runs through this.
#pragma once

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "arena/config/config.h"
#include "arena/models/engine_source.h"
#include "arena/models/model_registry.h"
#include "arena/tournament/runner.h"

namespace arena::models {

struct RunSetup {
  std::unique_ptr<ModelRegistry> registry;
  agents::AgentEnvironment env;  // the registry's; participants' make() refer to it
  std::vector<tournament::Participant> participants;
  std::vector<models::EngineSource> engines;
};

// The models the participating LLM agents run on (only these are opened).
std::vector<config::ModelConfig> models_in_use(const config::Config& config);

// Opens the models in use and makes the participants of `config.tournament.agents`; an error
// naming the model that failed to open. The agents read the environment through `get_env`. The
// setup must outlive the run (it owns the engines).
std::expected<std::unique_ptr<RunSetup>, std::string> prepare_run(const config::Config& config,
                                                                  agents::EnvReader get_env);

}  // namespace arena::models
