// Text <-> token ids for a GGUF model's vocabulary: SentencePiece-style (`llama`) with byte
// fallback, and byte-level BPE (`gpt2`) with the gpt-2 / llama-bpe / qwen2 pre-tokenizers.
// Behaviour matches llama.cpp's tokenizer (its published test vectors are the reference).
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"

namespace engine {

namespace gguf {
class GgufFile;
}

using TokenId = int32_t;

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // The tokenizer described by a GGUF file's tokenizer.ggml.* metadata, or what is missing or
  // unsupported (naming the key).
  static std::expected<std::unique_ptr<Tokenizer>, Error> from_gguf(const gguf::GgufFile& file);
  // The tokenizer of the GGUF file at `path` (a model or a vocabulary-only file), or what is wrong.
  static std::expected<std::unique_ptr<Tokenizer>, Error> open(const std::string& path);

  // Token ids of `text`. add_special: BOS/EOS as the metadata says (add_bos_token/add_eos_token);
  // parse_special: control tokens written in the text (e.g. "<|im_start|>") become their ids.
  virtual std::vector<TokenId> encode(std::string_view text, bool add_special, bool parse_special) const = 0;

  // The raw bytes one token stands for in output text (byte-level BPE decoded, SentencePiece's
  // U+2581 as a space, byte-fallback tokens as their byte); control tokens give their text only
  // when `special` is true, else "".
  virtual std::string token_to_piece(TokenId id, bool special = false) const = 0;

  // Concatenated pieces of `ids` (as llama.cpp's detokenize; control tokens rendered iff `special`).
  virtual std::string decode(std::span<const TokenId> ids, bool special = false) const = 0;

  virtual int32_t vocab_size() const = 0;
  // Beginning/end of sequence ids, or -1 when the vocabulary has none.
  virtual TokenId bos() const = 0;
  virtual TokenId eos() const = 0;
  // True for tokens that end generation (EOS, EOT, <|im_end|>, <|eot_id|>, ...).
  virtual bool is_end_of_generation(TokenId id) const = 0;
  // True for control tokens (not printable text).
  virtual bool is_control(TokenId id) const = 0;
  // True when encode(..., add_special = true, ...) starts with BOS.
  virtual bool adds_bos() const {
    const auto ids = encode("", true, false);
    return !ids.empty() && ids.front() == bos();
  }
};

}  // namespace engine
