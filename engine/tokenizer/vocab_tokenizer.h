// The part of every GGUF tokenizer that does not depend on the model: special-token
// partitioning, BOS/EOS, pieces of control/byte/user-defined tokens, detokenization with
// llama.cpp's leading-space removal and clean-up of spaces, and the special ids. Subclasses
// (SentencePiece, byte-level BPE) supply the encoding of raw text and the piece of a normal token.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/vocab.h"

namespace engine {

class VocabTokenizer : public Tokenizer {
 public:
  explicit VocabTokenizer(Vocab vocab) : vocab_(std::move(vocab)) {}

  std::vector<TokenId> encode(std::string_view text, bool add_special, bool parse_special) const override;
  std::string token_to_piece(TokenId id, bool special = false) const override;
  std::string decode(std::span<const TokenId> ids, bool special = false) const override;

  int32_t vocab_size() const override { return vocab_.size(); }
  TokenId bos() const override { return vocab_.bos(); }
  TokenId eos() const override { return vocab_.eos(); }
  bool is_end_of_generation(TokenId id) const override { return vocab_.is_end_of_generation(id); }
  bool is_control(TokenId id) const override { return vocab_.valid(id) && (vocab_.attr(id) & kAttrControl); }
  bool adds_bos() const override { return vocab_.add_bos(); }

  const Vocab& vocab() const { return vocab_; }

 protected:
  // Appends the ids of one raw-text fragment; `after_special` is true for the first fragment
  // and for one that follows a special token (SentencePiece adds its space prefix there).
  virtual void encode_text(std::string_view text, bool after_special, std::vector<TokenId>& out) const = 0;
  // The output bytes of a normal token's text.
  virtual std::string normal_piece(const std::string& text) const = 0;

  Vocab vocab_;
};

// llama.cpp's clean_up_tokenization_spaces: drops the space in " ?", " !", " .", " ,", around a
// lone " ' ", and before "'s", "'m", "'re", "'ve".
std::string clean_up_spaces(std::string text);

}  // namespace engine
