// The vocabulary's pieces indexed by text, for constrained decoding.
#include "engine/sampling/piece_index.h"

#include <algorithm>

namespace engine {

PieceIndex::PieceIndex(const Tokenizer& tokenizer, int32_t num_tokens) {
  pieces_.reserve(static_cast<size_t>(num_tokens));
  for (TokenId id = 0; id < num_tokens; ++id) {
    if (tokenizer.is_end_of_generation(id)) end_of_generation_.push_back(id);
    // Control tokens print nothing; an empty piece could never move a constraint forward.
    std::string piece = tokenizer.is_control(id) ? std::string() : tokenizer.token_to_piece(id, false);
    if (!piece.empty()) {
      by_piece_[piece].push_back(id);
      max_piece_length_ = std::max(max_piece_length_, piece.size());
    }
    pieces_.push_back(std::move(piece));
  }
}

std::span<const TokenId> PieceIndex::tokens_for(std::string_view text) const {
  auto it = by_piece_.find(std::string(text));
  if (it == by_piece_.end()) return {};
  return it->second;
}

}  // namespace engine
