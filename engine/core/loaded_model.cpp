// engine::LoadedModel (engine/api.h): a Model with its chat template, the one way agents and the
// arena open a GGUF file.
#include <utility>

#include "engine/api.h"
#include "engine/core/kv_budget.h"
#include "engine/model/model.h"

namespace engine {

std::expected<std::unique_ptr<LoadedModel>, Error> LoadedModel::open(const std::string& path,
                                                                     ModelOptions options) {
  auto model = Model::load(path, options.num_threads, options.context);
  if (!model) return std::unexpected(model.error());
  auto chat = ChatTemplate::for_model((*model)->file(), (*model)->tokenizer(), options.chat_template);
  if (!chat) {
    if (!options.chat_template.empty()) return std::unexpected(Error{path + ": " + chat.error().message});
    chat = std::unexpected(Error{path + ": " + chat.error().message});
  }
  return std::unique_ptr<LoadedModel>(new LoadedModel(path, std::move(*model), std::move(chat)));
}

LoadedModel::LoadedModel(std::string path, std::unique_ptr<Model> model,
                         std::expected<ChatTemplate, Error> chat)
    : path_(std::move(path)), model_(std::move(model)), chat_(std::move(chat)) {}

LoadedModel::~LoadedModel() = default;

const ModelShape& LoadedModel::shape() const {
  return model_->shape();
}

const Tokenizer& LoadedModel::tokenizer() const {
  return model_->tokenizer();
}

std::expected<std::string, Error> LoadedModel::render_chat(std::span<const ChatMessage> messages,
                                                           const ChatOptions& options) const {
  if (!chat_) return std::unexpected(chat_.error());
  return chat_->apply(messages, options);
}

std::vector<TokenId> LoadedModel::tokenize_prompt(std::string_view text) const {
  return tokenize_chat_prompt(model_->tokenizer(), text);
}

size_t LoadedModel::kv_bytes_per_token(const CacheConfig& cache) const {
  return kv_cache_shape(model_->shape(), cache).bytes_per_token();
}

std::expected<std::unique_ptr<Engine>, Error> LoadedModel::create_engine(EngineConfig config) {
  return Engine::create(model_->network(), model_->tokenizer(), std::move(config));
}

}  // namespace engine
