// A loaded GGUF model: the mapped file, its network (engine/model/transformer.h) and its
// tokenizer. What the serving core, `arena eval` and `arena bench forward` load.
#pragma once

#include <expected>
#include <memory>
#include <string>

#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/language_model.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

class Transformer;

// A loaded GGUF model: the mapped file, its network and its tokenizer.
class Model {
 public:
  // Maps `path`, binds the network (kernels on num_threads threads, 0 = all cores) and builds the
  // tokenizer; any problem is an Error naming the file and what is wrong.
  // `context`: the longest sequence it will run (0: the trained context; see Transformer::from_gguf).
  static std::expected<std::unique_ptr<Model>, Error> load(const std::string& path, int num_threads = 0,
                                                           int64_t context = 0);
  ~Model();

  // The mapped GGUF file.
  const gguf::GgufFile& file() const { return file_; }
  // The network's shape.
  const ModelShape& shape() const;
  // The network.
  LanguageModel& network();
  // The tokenizer (via Tokenizer::from_gguf).
  const Tokenizer& tokenizer() const { return *tokenizer_; }

 private:
  explicit Model(gguf::GgufFile file);

  gguf::GgufFile file_;
  std::unique_ptr<Transformer> network_;
  std::unique_ptr<Tokenizer> tokenizer_;
};

}  // namespace engine
