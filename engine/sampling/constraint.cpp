// The allowed-completions trie, the per-request constraint state, and jump-forward spelling.
#include "engine/sampling/constraint.h"

#include <fmt/format.h>

#include <algorithm>

namespace engine {

std::expected<std::shared_ptr<const CompletionTrie>, Error> CompletionTrie::build(
    std::span<const std::string> allowed) {
  if (allowed.empty())
    return std::unexpected(Error{"allowed_completions is empty: give at least one string"});
  auto trie = std::make_shared<CompletionTrie>();
  trie->nodes_.emplace_back();
  for (size_t s = 0; s < allowed.size(); ++s) {
    if (allowed[s].empty())
      return std::unexpected(Error{fmt::format("allowed completion {} is the empty string", s)});
    int32_t at = 0;
    for (char c : allowed[s]) {
      const auto byte = static_cast<unsigned char>(c);
      int32_t next = trie->child(at, byte);
      if (next < 0) {
        next = trie->num_nodes();
        auto& children = trie->nodes_[static_cast<size_t>(at)].children;
        children.insert(std::ranges::lower_bound(children, std::pair{byte, int32_t{-1}}), {byte, next});
        trie->nodes_.emplace_back();
      }
      at = next;
    }
    trie->nodes_[static_cast<size_t>(at)].terminal = true;
  }
  return trie;
}

int32_t CompletionTrie::child(int32_t i, unsigned char byte) const {
  const auto& children = node(i).children;
  auto it = std::ranges::lower_bound(children, std::pair{byte, int32_t{-1}});
  return it != children.end() && it->first == byte ? it->second : -1;
}

namespace {

// Calls `fn(node, tokens)` for every node below `at` whose path from `at` is the piece of one or
// more tokens (`tokens`, non-empty): the trie positions one token can move the output to.
template <typename Fn>
void for_each_token_step(const CompletionTrie& trie, const PieceIndex& pieces, int32_t at, std::string& path,
                         Fn&& fn) {
  if (path.size() >= pieces.max_piece_length()) return;
  for (const auto& [byte, next] : trie.node(at).children) {
    path.push_back(static_cast<char>(byte));
    if (const auto tokens = pieces.tokens_for(path); !tokens.empty()) fn(next, tokens);
    for_each_token_step(trie, pieces, next, path, fn);
    path.pop_back();
  }
}

}  // namespace

Constraint::Constraint(std::shared_ptr<const CompletionTrie> trie)
    : trie_(std::move(trie)), min_tokens_(static_cast<size_t>(trie_->num_nodes()), -1) {}

int32_t Constraint::min_tokens(const PieceIndex& pieces, int32_t at) {
  if (min_tokens_[static_cast<size_t>(at)] >= 0) return min_tokens_[static_cast<size_t>(at)];
  int32_t best = trie_->node(at).terminal ? 0 : kUnreachable;
  if (best != 0) {
    std::string path;
    for_each_token_step(*trie_, pieces, at, path, [&](int32_t next, std::span<const TokenId>) {
      const int32_t rest = min_tokens(pieces, next);  // deeper nodes only: the recursion ends
      if (rest != kUnreachable) best = std::min(best, rest + 1);
    });
  }
  min_tokens_[static_cast<size_t>(at)] = best;
  return best;
}

std::vector<TokenId> Constraint::allowed_tokens(const PieceIndex& pieces, int32_t room) {
  std::vector<TokenId> out;
  if (room <= 0) return out;
  std::string path;
  for_each_token_step(*trie_, pieces, node_, path, [&](int32_t next, std::span<const TokenId> tokens) {
    if (min_tokens(pieces, next) <= room - 1) out.insert(out.end(), tokens.begin(), tokens.end());
  });
  if (is_complete())
    for (TokenId id : pieces.end_of_generation()) out.push_back(id);
  std::ranges::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// The node `text` leads to from `at`, or -1 when it leaves the trie.
int32_t walk(const CompletionTrie& trie, int32_t at, std::string_view text) {
  for (char c : text) {
    at = trie.child(at, static_cast<unsigned char>(c));
    if (at < 0) return -1;
  }
  return at;
}

}  // namespace

int32_t Constraint::min_tokens_after(const PieceIndex& pieces, std::string_view text) {
  const int32_t at = walk(*trie_, node_, text);
  return at < 0 ? kUnreachable : min_tokens(pieces, at);
}

bool Constraint::advance(std::string_view piece) {
  const int32_t at = walk(*trie_, node_, piece);
  if (at < 0) return false;
  node_ = at;
  return true;
}

std::string Constraint::forced_text() const {
  std::string text;
  int32_t at = node_;
  while (!trie_->node(at).terminal && trie_->node(at).children.size() == 1) {
    const auto& [byte, next] = trie_->node(at).children.front();
    text.push_back(static_cast<char>(byte));
    at = next;
  }
  return text;
}

std::vector<TokenId> tokens_spelling(std::string_view text, const Tokenizer& tokenizer,
                                     const PieceIndex& pieces) {
  std::vector<TokenId> ids = tokenizer.encode(text, /*add_special=*/false, /*parse_special=*/false);
  std::string spelled;
  bool usable = true;
  for (TokenId id : ids) {
    if (id < 0 || id >= pieces.num_tokens()) {
      usable = false;
      break;
    }
    spelled += pieces.piece(id);
  }
  if (usable && spelled == text) return ids;
  // The tokenizer may add a leading space or merge differently: match pieces directly.
  ids.clear();
  size_t at = 0;
  while (at < text.size()) {
    size_t len = std::min(pieces.max_piece_length(), text.size() - at);
    for (; len > 0; --len) {
      auto found = pieces.tokens_for(text.substr(at, len));
      if (!found.empty()) {
        ids.push_back(found.front());
        break;
      }
    }
    if (len == 0) return {};
    at += len;
  }
  return ids;
}

}  // namespace engine
