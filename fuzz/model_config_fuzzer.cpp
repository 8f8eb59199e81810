// Fuzz target: a GGUF model's configuration checked against itself. The input is a GGUF file;
// when the engine accepts it as a model (config read, weights bound: head counts, dimensions,
// vocabulary, norms and tensor shapes consistent), a forward pass over a few tokens must run
// without touching memory outside the weights or the cache (ASan checks that), and give one row
// of vocab logits. Tokenizer and chat template loading are exercised on the same file.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/model_config.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/memfd_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::MemFile mem(data, size);
  const auto file = engine::gguf::GgufFile::open(mem.path());
  if (!file) return 0;
  if (auto tokenizer = engine::Tokenizer::from_gguf(*file)) {
    const auto ids = (*tokenizer)->encode("Hello, world! 12 \n", true, true);
    for (auto id : ids) FUZZ_CHECK(id >= 0 && id < (*tokenizer)->vocab_size());
    (void)(*tokenizer)->decode(ids);
    if (auto chat = engine::ChatTemplate::for_model(*file, **tokenizer)) {
      const std::vector<engine::ChatMessage> messages{{"system", "s"}, {"user", "u"}};
      (void)chat->apply(messages);
    }
  }
  const auto config = engine::read_model_config(*file);
  if (!config) return 0;
  const auto& s = config->shape;
  FUZZ_CHECK(s.num_layers > 0 && s.num_heads > 0 && s.num_kv_heads > 0 && s.head_dim > 0);
  FUZZ_CHECK(s.num_heads % s.num_kv_heads == 0);
  // Keep the forward pass cheap: the fuzzer's models are tiny, skip anything large.
  if (int64_t{s.embedding_dim} * s.vocab_size > (int64_t{1} << 22) || s.num_layers > 8) return 0;
  auto net = engine::Transformer::from_gguf(*file, 1);
  if (!net) return 0;
  engine::SequenceRunner runner(**net, 4, engine::KvDtype::F32, 16);
  const std::vector<int32_t> tokens{0, s.vocab_size - 1};
  const auto logits = runner.eval(tokens, false);
  FUZZ_CHECK(logits.has_value());
  FUZZ_CHECK(logits->size() == static_cast<size_t>(s.vocab_size));
  return 0;
}
