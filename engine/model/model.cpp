// Model::load: GGUF file -> transformer + tokenizer.
#include "engine/model/model.h"

#include "engine/model/transformer.h"

namespace engine {

Model::Model(gguf::GgufFile file) : file_(std::move(file)) {}
Model::~Model() = default;

std::expected<std::unique_ptr<Model>, Error> Model::load(const std::string& path, int num_threads,
                                                         int64_t context) {
  auto file = gguf::GgufFile::open(path);
  if (!file) return std::unexpected(file.error());
  std::unique_ptr<Model> model(new Model(std::move(*file)));
  // The network's views point into model->file_'s mapping, which lives as long as the model.
  auto network = Transformer::from_gguf(model->file_, num_threads, context);
  if (!network) return std::unexpected(network.error());
  model->network_ = std::move(*network);
  auto tokenizer = Tokenizer::from_gguf(model->file_);
  if (!tokenizer) return std::unexpected(tokenizer.error());
  model->tokenizer_ = std::move(*tokenizer);
  return model;
}

const ModelShape& Model::shape() const {
  return network_->shape();
}

LanguageModel& Model::network() {
  return *network_;
}

}  // namespace engine
