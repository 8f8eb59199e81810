// Building the built-in vocabulary and writing or copying tokenizer metadata.
#include "engine/tools/synth/synth_vocab.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/unicode.h"
#include "engine/tools/gguf_writer.h"
#include "engine/tools/synth/builtin_corpus.h"
#include "engine/tools/synth/byte_level_bpe.h"

namespace engine::synth {

namespace {

// Pre-token counts of a corpus.
std::map<std::string, int64_t> corpus_word_counts(std::string_view corpus) {
  std::map<std::string, int64_t> counts;
  for (auto piece : pretokenize(corpus)) ++counts[std::string(piece)];
  return counts;
}

}  // namespace

const std::string& chatml_template() {
  static const std::string kTemplate =
      R"({%- for message in messages -%}{{- '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' -}}{%- endfor -%}{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%})";
  return kTemplate;
}

std::expected<Vocabulary, Error> build_builtin_vocab(int64_t num_tokens) {
  return build_builtin_vocab(num_tokens, builtin_corpus());
}

std::expected<Vocabulary, Error> build_builtin_vocab(int64_t num_tokens, std::string_view corpus,
                                                     std::span<const std::string> user_tokens) {
  const int64_t num_user = static_cast<int64_t>(user_tokens.size());
  if (num_tokens < kMinBuiltinVocab + num_user)
    return std::unexpected(Error{fmt::format(
        "vocab {} is too small for the built-in tokenizer (256 byte tokens + 3 special tokens + {} user "
        "tokens = {} at least)",
        num_tokens, num_user, kMinBuiltinVocab + num_user)});

  Vocabulary v;
  v.tokens.reserve(static_cast<size_t>(num_tokens));
  for (uint8_t b : gpt2_byte_order()) {
    v.tokens.push_back(unicode::byte_to_unicode(b));
    v.token_types.push_back(static_cast<int32_t>(TokenType::Normal));
  }

  const auto merges =
      learn_merges(corpus_word_counts(corpus), static_cast<size_t>(num_tokens - kMinBuiltinVocab - num_user));
  std::unordered_set<std::string> known(v.tokens.begin(), v.tokens.end());
  for (const auto& m : merges) {
    v.merges.push_back(m.left + " " + m.right);
    if (known.insert(m.left + m.right).second) {
      v.tokens.push_back(m.left + m.right);
      v.token_types.push_back(static_cast<int32_t>(TokenType::Normal));
    }
  }
  v.num_learned = static_cast<int32_t>(v.tokens.size() - 256);

  auto add = [&](std::string text, TokenType type) {
    v.tokens.push_back(std::move(text));
    v.token_types.push_back(static_cast<int32_t>(type));
    return static_cast<int32_t>(v.tokens.size() - 1);
  };
  v.bos = add("<|endoftext|>", TokenType::Control);
  add("<|im_start|>", TokenType::Control);
  v.eos = add("<|im_end|>", TokenType::Control);
  v.padding = v.bos;
  for (const auto& text : user_tokens) add(text, TokenType::UserDefined);
  // Padding tokens are UNUSED, as Qwen's [PAD] tokens are: llama.cpp (and our tokenizer) scan every
  // control token's text when splitting special tokens out of a prompt, so 150k control tokens
  // would make tokenizing a prompt some 400 times slower.
  for (int64_t n = 0; static_cast<int64_t>(v.tokens.size()) < num_tokens; ++n)
    add(fmt::format("<|reserved_{}|>", n), TokenType::Unused);
  v.chat_template = chatml_template();
  return v;
}

void write_vocab(const Vocabulary& vocab, gguf::GgufWriter& writer) {
  writer.set_string("tokenizer.ggml.model", "gpt2");
  writer.set_string("tokenizer.ggml.pre", "qwen2");
  writer.set_string_array("tokenizer.ggml.tokens", vocab.tokens);
  writer.set_i32_array("tokenizer.ggml.token_type", vocab.token_types);
  writer.set_string_array("tokenizer.ggml.merges", vocab.merges);
  writer.set_u32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(vocab.bos));
  writer.set_u32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(vocab.eos));
  writer.set_u32("tokenizer.ggml.padding_token_id", static_cast<uint32_t>(vocab.padding));
  writer.set_bool("tokenizer.ggml.add_bos_token", false);
  writer.set_string("tokenizer.chat_template", vocab.chat_template);
}

std::expected<int64_t, Error> copy_tokenizer(const gguf::GgufFile& source, gguf::GgufWriter& writer,
                                             std::span<const std::string> user_tokens) {
  auto tokens = source.get_string_array("tokenizer.ggml.tokens");
  if (!tokens || tokens->empty())
    return std::unexpected(Error{
        fmt::format("{}: no tokenizer.ggml.tokens string array: not a vocabulary file", source.path())});
  for (const auto& [key, value] : source.metadata())
    if (key.starts_with("tokenizer.")) writer.set(key, value);
  if (user_tokens.empty()) return static_cast<int64_t>(tokens->size());

  const size_t num_source = tokens->size();
  const std::unordered_set<std::string> known(tokens->begin(), tokens->end());
  for (const auto& text : user_tokens) {
    if (known.contains(text))
      return std::unexpected(Error{fmt::format("{} already has the user token '{}'", source.path(), text)});
    tokens->push_back(text);
  }
  std::vector<int32_t> types(num_source, static_cast<int32_t>(TokenType::Normal));
  if (auto source_types = source.get_int_array("tokenizer.ggml.token_type"))
    for (size_t i = 0; i < std::min(num_source, source_types->size()); ++i)
      types[i] = static_cast<int32_t>((*source_types)[i]);
  types.resize(tokens->size(), static_cast<int32_t>(TokenType::UserDefined));
  writer.set_string_array("tokenizer.ggml.tokens", *tokens);
  writer.set_i32_array("tokenizer.ggml.token_type", types);
  if (auto scores = source.get_float_array("tokenizer.ggml.scores")) {
    std::vector<float> f(scores->begin(), scores->end());
    f.resize(tokens->size(), 0.0f);
    writer.set_f32_array("tokenizer.ggml.scores", f);
  }
  return static_cast<int64_t>(tokens->size());
}

}  // namespace engine::synth
