// The vocabulary seen as text: each token's output bytes (its piece), an index from piece to
// token ids, and the end-of-generation tokens. Built once per engine from the Tokenizer and
// shared read-only by every request's Constraint.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/tokenizer/tokenizer.h"

namespace engine {

class PieceIndex {
 public:
  // Indexes tokens [0, num_tokens) of `tokenizer` (num_tokens <= tokenizer.vocab_size()).
  PieceIndex(const Tokenizer& tokenizer, int32_t num_tokens);

  int32_t num_tokens() const { return static_cast<int32_t>(pieces_.size()); }
  // The bytes token `id` adds to the output text ("" for control tokens).
  const std::string& piece(TokenId id) const { return pieces_[static_cast<size_t>(id)]; }
  // Tokens whose piece is exactly `text` (ascending ids; empty when none).
  std::span<const TokenId> tokens_for(std::string_view text) const;
  // Length of the longest piece, in bytes.
  size_t max_piece_length() const { return max_piece_length_; }
  // Tokens that end generation (EOS, EOT, <|im_end|>, ...), ascending.
  std::span<const TokenId> end_of_generation() const { return end_of_generation_; }

 private:
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, std::vector<TokenId>> by_piece_;
  std::vector<TokenId> end_of_generation_;
  size_t max_piece_length_ = 0;
};

}  // namespace engine
