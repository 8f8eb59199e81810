// Constrained decoding: the output must be exactly one of a set of allowed strings (e.g. the
// legal moves "e2e4", "Nf3"). A trie over the allowed strings' bytes says, at every step, which
// tokens keep the output a prefix of some allowed string; several token sequences may spell the
// same string, and each of them is accepted. The mask also respects the request's token budget:
// a token is allowed only if some allowed string can still be finished within the tokens left,
// so `max_tokens` never cuts an answer short. When only one continuation remains, its text is
// forced (jump-forward) instead of sampled.
#pragma once

#include <cstdint>
#include <expected>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/sampling/piece_index.h"

namespace engine {

// A byte trie over a set of allowed strings.
class CompletionTrie {
 public:
  struct Node {
    std::vector<std::pair<unsigned char, int32_t>> children;  // sorted by byte
    bool terminal = false;                                    // an allowed string ends here
  };

  // The trie of `allowed`, or an error when the set is empty or holds an empty string.
  static std::expected<std::shared_ptr<const CompletionTrie>, Error> build(
      std::span<const std::string> allowed);

  const Node& node(int32_t i) const { return nodes_[static_cast<size_t>(i)]; }
  // The child of node `i` along `byte`, or -1.
  int32_t child(int32_t i, unsigned char byte) const;
  int32_t num_nodes() const { return static_cast<int32_t>(nodes_.size()); }

 private:
  std::vector<Node> nodes_;  // nodes_[0] is the root (empty output)
};

// One request's position in its CompletionTrie.
class Constraint {
 public:
  static constexpr int32_t kUnreachable = std::numeric_limits<int32_t>::max();

  explicit Constraint(std::shared_ptr<const CompletionTrie> trie);

  // Tokens allowed next, ascending, when `room` tokens (this one included) may still be
  // generated: every token whose piece keeps the output a prefix of an allowed string that can
  // then be finished within the room, plus the end-of-generation tokens when the output
  // already is an allowed string.
  std::vector<TokenId> allowed_tokens(const PieceIndex& pieces, int32_t room);
  // The fewest tokens that finish an allowed string from the output so far (0 when it is one);
  // kUnreachable when no sequence of the vocabulary's tokens spells any.
  int32_t min_tokens_to_complete(const PieceIndex& pieces) { return min_tokens(pieces, node_); }
  // The same after the output is extended by `text` (kUnreachable when that leaves the trie).
  int32_t min_tokens_after(const PieceIndex& pieces, std::string_view text);
  // Moves past the bytes of `piece`; false (and no move) when they leave the trie.
  bool advance(std::string_view piece);
  // Whether the output so far equals an allowed string.
  bool is_complete() const { return trie_->node(node_).terminal; }
  // Whether the output equals an allowed string that no longer allowed string extends.
  bool is_finished() const { return is_complete() && trie_->node(node_).children.empty(); }
  // The bytes every allowed continuation starts with, up to the next choice (or the end).
  std::string forced_text() const;

 private:
  int32_t min_tokens(const PieceIndex& pieces, int32_t at);

  std::shared_ptr<const CompletionTrie> trie_;
  int32_t node_ = 0;
  std::vector<int32_t> min_tokens_;  // per trie node, computed on demand (-1: not yet)
};

// Tokens whose pieces spell exactly `text`: the tokenizer's own encoding when it does, else
// the longest-piece-first match over the vocabulary; empty when no token sequence spells it.
std::vector<TokenId> tokens_spelling(std::string_view text, const Tokenizer& tokenizer,
                                     const PieceIndex& pieces);

}  // namespace engine
