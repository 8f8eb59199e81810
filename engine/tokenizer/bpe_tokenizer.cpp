// Byte-level BPE as llama.cpp's llm_tokenizer_bpe runs it, with merges looked up by symbol id:
// every string that takes part in a merge gets an id (its token id, or an id past the vocabulary
// when the merge list names a string that is not a token), so a merge is one hash lookup on a
// pair of ids.
#include "engine/tokenizer/bpe_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <queue>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/unicode.h"
#include "engine/tokenizer/vocab_tokenizer.h"

namespace engine {

namespace {

struct Merge {
  int32_t rank;
  int32_t result;  // symbol id of the merged string
};

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

// (left symbol, right symbol) -> merge, open addressing with linear probing, at most half full.
class MergeTable {
 public:
  void reserve(size_t num_merges) {
    slots_.assign(std::bit_ceil(std::max<size_t>(16, num_merges * 2)), Slot{});
    mask_ = slots_.size() - 1;
  }
  // Adds the merge of `key` unless the pair already has one (the first rank wins).
  void insert(uint64_t key, Merge merge) {
    for (uint64_t i = mix(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == kEmpty) {
        slots_[i] = {key, merge};
        return;
      }
      if (slots_[i].key == key) return;
    }
  }
  // The merge of `key`, or nullptr.
  const Merge* find(uint64_t key) const {
    for (uint64_t i = mix(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &slots_[i].merge;
      if (slots_[i].key == kEmpty) return nullptr;
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~0ull;  // not a key: symbol ids are below 2^31
  struct Slot {
    uint64_t key = kEmpty;
    Merge merge{};
  };
  static uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    return k ^ (k >> 33);
  }
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
};

class BpeTokenizer final : public VocabTokenizer {
 public:
  BpeTokenizer(Vocab vocab, const BpeOptions& options)
      : VocabTokenizer(std::move(vocab)), options_(options) {}

  // Builds the merge table from "left right" strings (rank = position; the first of duplicates wins).
  void load_merges(const std::vector<std::string>& merges);

 protected:
  void encode_text(std::string_view text, bool after_special, std::vector<TokenId>& out) const override;
  void encode_word(std::string_view word, std::vector<TokenId>& out) const;

  std::string normal_piece(const std::string& text) const override {
    std::string piece;
    for (const uint32_t cpt : unicode::decode_utf8(text)) {
      if (const auto byte = unicode::unicode_to_byte(cpt)) {
        piece += static_cast<char>(*byte);
      } else {
        unicode::append_utf8(piece, cpt);  // not a byte-level character: keep it as is
      }
    }
    return piece;
  }

 private:
  int32_t symbol_id(std::string_view text);

  BpeOptions options_;
  MergeTable merges_;
  TokenMap extra_symbols_;                 // merge strings that are not tokens, ids from vocab size on
  std::array<int32_t, 256> byte_symbols_;  // symbol id of each byte's byte-level character (-1: none)
};

int32_t BpeTokenizer::symbol_id(std::string_view text) {
  if (const TokenId id = vocab_.find(text); id >= 0) return id;
  if (const auto it = extra_symbols_.find(text); it != extra_symbols_.end()) return it->second;
  const auto id = vocab_.size() + static_cast<int32_t>(extra_symbols_.size());
  extra_symbols_.emplace(std::string(text), id);
  return id;
}

void BpeTokenizer::load_merges(const std::vector<std::string>& merges) {
  merges_.reserve(merges.size());
  std::string joined;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string_view line = merges[rank];
    const size_t space = line.find(' ', 1);
    if (space == std::string::npos) continue;  // not a "left right" pair; llama.cpp ignores it too
    const std::string_view left = line.substr(0, space);
    const std::string_view right = line.substr(space + 1);
    joined.assign(left).append(right);
    const int32_t left_id = symbol_id(left);
    const int32_t right_id = symbol_id(right);
    merges_.insert(pair_key(left_id, right_id), Merge{static_cast<int32_t>(rank), symbol_id(joined)});
  }
  for (int b = 0; b < 256; ++b) {
    const std::string& text = unicode::byte_to_unicode(static_cast<uint8_t>(b));
    const TokenId id = vocab_.find(text);
    const auto extra = extra_symbols_.find(text);
    byte_symbols_[b] = id >= 0 ? id : extra != extra_symbols_.end() ? extra->second : -1;
  }
}

void BpeTokenizer::encode_text(std::string_view text, bool, std::vector<TokenId>& out) const {
  const std::vector<uint32_t> cpts = unicode::decode_utf8(text);
  size_t start = 0;
  std::string word;
  for (const size_t length : split_words(cpts, options_.pre)) {
    word.clear();  // the word's UTF-8 (malformed input bytes already became U+FFFD)
    for (size_t i = start; i < start + length; ++i) unicode::append_utf8(word, cpts[i]);
    start += length;
    encode_word(word, out);
  }
}

// One symbol per byte of the word at first; merged-away symbols have length 0.
struct Symbol {
  int32_t id;
  uint32_t start;
  uint32_t length;
  int prev;
  int next;
};

struct Bigram {
  int32_t rank;
  int left;
  int right;
  int32_t left_id;
  int32_t right_id;
  int32_t result;
};

struct BigramOrder {
  // Lowest rank first, then leftmost.
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

void BpeTokenizer::encode_word(std::string_view word, std::vector<TokenId>& out) const {
  if (word.empty()) return;
  if (options_.ignore_merges) {
    std::string encoded;
    for (const char c : word) encoded += unicode::byte_to_unicode(static_cast<uint8_t>(c));
    if (const TokenId id = vocab_.find(encoded); id >= 0) {
      out.push_back(id);
      return;
    }
  }

  std::vector<Symbol> symbols(word.size());
  for (size_t i = 0; i < word.size(); ++i) {
    const int index = static_cast<int>(i);
    symbols[i] = {byte_symbols_[static_cast<unsigned char>(word[i])], static_cast<uint32_t>(i), 1, index - 1,
                  i + 1 == word.size() ? -1 : index + 1};
  }

  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue;
  const auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const int32_t left_id = symbols[left].id;
    const int32_t right_id = symbols[right].id;
    if (left_id < 0 || right_id < 0) return;
    const Merge* merge = merges_.find(pair_key(left_id, right_id));
    if (!merge) return;
    queue.push({merge->rank, left, right, left_id, right_id, merge->result});
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) try_add(i - 1, i);

  while (!queue.empty()) {
    const Bigram bigram = queue.top();
    queue.pop();
    Symbol& left = symbols[bigram.left];
    Symbol& right = symbols[bigram.right];
    // Stale: a side was merged away or changed since the bigram was queued.
    if (left.length == 0 || right.length == 0 || left.id != bigram.left_id || right.id != bigram.right_id)
      continue;
    left.id = bigram.result;
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = bigram.left;
    try_add(left.prev, bigram.left);
    try_add(bigram.left, left.next);
  }

  for (int i = 0; i != -1; i = symbols[i].next) {
    const Symbol& symbol = symbols[i];
    if (symbol.id >= 0 && symbol.id < vocab_.size()) {
      out.push_back(symbol.id);
      continue;
    }
    // Not a token: llama.cpp looks up each byte of the piece's byte-level text and keeps the hits.
    std::string encoded;
    for (uint32_t j = symbol.start; j < symbol.start + symbol.length; ++j)
      encoded += unicode::byte_to_unicode(static_cast<uint8_t>(word[j]));
    for (const char c : encoded)
      if (const TokenId id = vocab_.find(std::string_view(&c, 1)); id >= 0) out.push_back(id);
  }
}

}  // namespace

std::expected<std::unique_ptr<Tokenizer>, Error> make_bpe_tokenizer(const gguf::GgufFile& file,
                                                                    const BpeOptions& options) {
  constexpr const char* kMergesKey = "tokenizer.ggml.merges";
  auto merges = file.get_string_array(kMergesKey);
  if (!merges)
    return std::unexpected(
        Error{fmt::format("{}: {} is {} (a byte-level BPE vocabulary needs its merges)", file.path(),
                          kMergesKey, file.find(kMergesKey) ? "not an array of strings" : "missing")});
  auto vocab = Vocab::load(file, options.defaults);
  if (!vocab) return std::unexpected(vocab.error());
  auto tokenizer = std::make_unique<BpeTokenizer>(std::move(*vocab), options);
  tokenizer->load_merges(*merges);
  return tokenizer;
}

}  // namespace engine
