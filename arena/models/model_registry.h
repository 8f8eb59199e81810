// The arena's models: each `models:` entry opened once (engine::LoadedModel) with the one Engine
// serving it, shared by every agent on that model. The registry is what the agent factory's
// AgentEnvironment looks models up in; it outlives every agent and engine request.
#pragma once

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "arena/config/config.h"
#include "engine/api.h"

namespace arena::models {

class ModelRegistry {
 public:
  // Opens every model of `models` and starts its engine (engine log lines go to spdlog);
  // an error naming the model and what went wrong.
  static std::expected<std::unique_ptr<ModelRegistry>, std::string> open(
      const std::vector<config::ModelConfig>& models);
  ~ModelRegistry();
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;

  // The model named `name` and its engine, or nullptr.
  const agents::ModelBinding* find(const std::string& name) const;
  // Every opened model, in config order.
  const std::vector<agents::ModelBinding>& bindings() const { return bindings_; }
  // What the agent factory needs: these models, and the environment as `get_env` reads it.
  agents::AgentEnvironment environment(agents::EnvReader get_env) const;

 private:
  ModelRegistry() = default;

  struct Entry {
    std::unique_ptr<engine::LoadedModel> model;
    std::unique_ptr<engine::Engine> engine;  // declared after the model: destroyed first
  };
  std::vector<Entry> entries_;
  std::vector<agents::ModelBinding> bindings_;
};

}  // namespace arena::models
