// Tokenizer::from_gguf: picks the tokenizer implementation from tokenizer.ggml.model and, for
// byte-level BPE, the pre-tokenizer and its defaults from tokenizer.ggml.pre (llama.cpp's names).
#include "engine/tokenizer/tokenizer.h"

#include <fmt/format.h>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/spm_tokenizer.h"

namespace engine {

namespace {

constexpr const char* kModelKey = "tokenizer.ggml.model";
constexpr const char* kPreKey = "tokenizer.ggml.pre";

std::expected<BpeOptions, Error> bpe_options(const gguf::GgufFile& file) {
  std::string pre = "default";  // llama.cpp's choice when the key is absent
  if (file.find(kPreKey)) {
    auto value = file.get_string(kPreKey);
    if (!value) return std::unexpected(Error{fmt::format("{}: {} is not a string", file.path(), kPreKey)});
    pre = *value;
  }
  BpeOptions options;
  options.defaults.clean_spaces = true;
  if (pre == "default" || pre == "gpt-2" || pre == "phi-2") {
    options.pre = PreTokenizer::Gpt2;
  } else if (pre == "llama-bpe" || pre == "llama3" || pre == "llama-v3") {
    options.pre = PreTokenizer::Llama3;
    options.ignore_merges = true;
    options.defaults.add_bos = true;
  } else if (pre == "qwen2" || pre == "deepseek-r1-qwen") {
    options.pre = PreTokenizer::Qwen2;
    options.defaults.clean_spaces = false;
  } else {
    return std::unexpected(
        Error{fmt::format("{}: {} is '{}', which is not supported (supported: gpt-2, phi-2, llama-bpe, "
                          "llama3, llama-v3, qwen2, "
                          "deepseek-r1-qwen, default)",
                          file.path(), kPreKey, pre)});
  }
  return options;
}

}  // namespace

std::expected<std::unique_ptr<Tokenizer>, Error> Tokenizer::open(const std::string& path) {
  auto file = gguf::GgufFile::open(path);
  if (!file) return std::unexpected(file.error());
  return from_gguf(*file);
}

std::expected<std::unique_ptr<Tokenizer>, Error> Tokenizer::from_gguf(const gguf::GgufFile& file) {
  const auto model = file.get_string(kModelKey);
  if (!model)
    return std::unexpected(Error{fmt::format("{}: {} is {} (the file has no usable vocabulary)", file.path(),
                                             kModelKey, file.find(kModelKey) ? "not a string" : "missing")});
  if (*model == "llama") return make_spm_tokenizer(file);
  if (*model == "gpt2") {
    auto options = bpe_options(file);
    if (!options) return std::unexpected(options.error());
    return make_bpe_tokenizer(file, *options);
  }
  return std::unexpected(Error{fmt::format(
      "{}: {} is '{}', which is not supported (supported: llama (SentencePiece), gpt2 (byte-level BPE))",
      file.path(), kModelKey, *model)});
}

}  // namespace engine
