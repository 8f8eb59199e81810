// The vocabulary a synthesized model carries: either the built-in byte-level BPE (GPT-2 byte
// tokens, merges learned from the built-in corpus, ChatML control tokens, unused reserved tokens
// up to the requested size) or every tokenizer.* key copied from another GGUF file.
#pragma once

#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <vector>

#include "engine/error.h"

namespace engine::gguf {
class GgufFile;
class GgufWriter;
}  // namespace engine::gguf

namespace engine::synth {

// llama.cpp's token types (tokenizer.ggml.token_type).
enum class TokenType : int32_t {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6
};

struct Vocabulary {
  std::vector<std::string> tokens;  // in GPT-2 byte symbols for normal tokens
  std::vector<int32_t> token_types;
  std::vector<std::string> merges;  // "left right", highest priority first
  int32_t bos = -1;                 // <|endoftext|>, as Qwen's
  int32_t eos = -1;                 // <|im_end|>
  int32_t padding = -1;             // <|endoftext|>
  int32_t num_learned = 0;          // tokens made by merges (after the 256 byte tokens)
  std::string chat_template;        // ChatML
};

// The smallest built-in vocabulary: 256 byte tokens and the 3 special tokens.
inline constexpr int64_t kMinBuiltinVocab = 259;

// The ChatML chat template (Jinja) written as tokenizer.chat_template.
const std::string& chatml_template();

// The built-in vocabulary of exactly `num_tokens` tokens: bytes, then up to num_tokens - 259 merged
// tokens learned from the built-in corpus, then <|endoftext|>, <|im_start|>, <|im_end|>, then
// <|reserved_N|> tokens of type Unused (like Qwen's [PAD] tokens) once the corpus has no pair left
// to merge. `corpus` replaces the built-in corpus (a vocabulary made for one kind of text, such as
// a trained model's prompts). `user_tokens` follow the special tokens as USER_DEFINED tokens, kept
// as raw UTF-8 text: the tokenizer splits them out of any text before BPE, longest first (llama.cpp
// does the same), so each is always one token; they count in `num_tokens`. Deterministic.
std::expected<Vocabulary, Error> build_builtin_vocab(int64_t num_tokens, std::string_view corpus,
                                                     std::span<const std::string> user_tokens = {});
std::expected<Vocabulary, Error> build_builtin_vocab(int64_t num_tokens);

// Writes tokenizer.ggml.model "gpt2", pre "qwen2", tokens, token_type, merges, special ids,
// add_bos_token false, and tokenizer.chat_template.
void write_vocab(const Vocabulary& vocab, gguf::GgufWriter& writer);

// Copies every tokenizer.* key of `source` into `writer`, with `user_tokens` appended as
// USER_DEFINED tokens (score 0); returns the number of tokens, or an error naming the file when it
// has no tokenizer.ggml.tokens string array or already has one of the user tokens.
std::expected<int64_t, Error> copy_tokenizer(const gguf::GgufFile& source, gguf::GgufWriter& writer,
                                             std::span<const std::string> user_tokens = {});

}  // namespace engine::synth
