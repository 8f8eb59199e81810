// Opening the configured models and their engines.
#include "arena/models/model_registry.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <utility>

#include "agents/backend/shared_backends.h"

namespace arena::models {

ModelRegistry::~ModelRegistry() = default;

std::expected<std::unique_ptr<ModelRegistry>, std::string> ModelRegistry::open(
    const std::vector<config::ModelConfig>& models) {
  std::unique_ptr<ModelRegistry> registry(new ModelRegistry());
  registry->entries_.reserve(models.size());
  for (const auto& m : models) {
    const auto start = std::chrono::steady_clock::now();
    engine::ModelOptions options;
    options.num_threads = m.threads;
    options.chat_template = m.chat_template;
    auto model = engine::LoadedModel::open(m.path, options);
    if (!model) return std::unexpected(fmt::format("model '{}': {}", m.name, model.error().message));
    engine::EngineConfig engine_config = m.engine;
    engine_config.logger = [name = m.name](std::string_view line) {
      spdlog::info("engine {}: {}", name, line);
    };
    auto engine = (*model)->create_engine(std::move(engine_config));
    if (!engine)
      return std::unexpected(
          fmt::format("model '{}': cannot start its engine: {}", m.name, engine.error().message));
    spdlog::info("model {}: {} opened in {:.1f} s, {} KV blocks of {} tokens", m.name, m.path,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                 (*engine)->num_kv_blocks(), m.engine.cache.block_size);
    registry->entries_.push_back({std::move(*model), std::move(*engine)});
  }
  for (size_t i = 0; i < models.size(); ++i)
    registry->bindings_.push_back(
        {models[i].name, registry->entries_[i].model.get(), registry->entries_[i].engine.get()});
  return registry;
}

const agents::ModelBinding* ModelRegistry::find(const std::string& name) const {
  for (const auto& b : bindings_)
    if (b.name == name) return &b;
  return nullptr;
}

agents::AgentEnvironment ModelRegistry::environment(agents::EnvReader get_env) const {
  agents::AgentEnvironment env;
  env.find_model = [this](const std::string& name) { return find(name); };
  env.get_env = std::move(get_env);
  env.shared_backends = std::make_shared<agents::backend::SharedBackends>();
  return env;
}

}  // namespace arena::models
