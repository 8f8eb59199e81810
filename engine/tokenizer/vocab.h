// The vocabulary a GGUF file describes (tokenizer.ggml.*): token texts, scores and attributes,
// the special ids (BOS, EOS, EOT, ...), the end-of-generation set, and the split of raw text
// around special tokens that precedes tokenization (llama.cpp's tokenizer_st_partition).
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/error.h"
#include "engine/tokenizer/token_index.h"
#include "engine/tokenizer/tokenizer.h"

namespace engine {

namespace gguf {
class GgufFile;
}

// Token attributes (tokenizer.ggml.token_type, plus the strip flags llama.cpp adds per model).
enum TokenAttr : uint32_t {
  kAttrNormal = 1,
  kAttrUnknown = 2,
  kAttrControl = 4,
  kAttrUserDefined = 8,
  kAttrUnused = 16,
  kAttrByte = 32,
  kAttrLstrip = 64,  // a special token that swallows whitespace on its left when parsed
  kAttrRstrip = 128,
};

// Hash for string maps that accept std::string_view lookups without building a string.
struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using TokenMap = std::unordered_map<std::string, TokenId, StringViewHash, std::equal_to<>>;

// Behaviour that depends on the tokenizer model and pre-tokenizer, before metadata overrides.
struct VocabDefaults {
  TokenId bos = -1;
  TokenId eos = -1;
  TokenId unk = -1;
  bool add_bos = false;
  bool add_eos = false;
  bool add_space_prefix = false;  // SentencePiece's leading "▁"
  bool clean_spaces = false;      // detokenizer removes " ," " ." " 's" ... (clean_up_tokenization_spaces)
};

// A piece of input text after special-token partitioning: raw text, or one special token.
struct TextFragment {
  TokenId token = -1;  // -1 for raw text
  size_t offset = 0;   // raw text: byte range in the input
  size_t length = 0;
  bool is_token() const { return token >= 0; }
};

class Vocab {
 public:
  // Reads tokens, types, scores and special ids from `file`; errors name the key and file.
  static std::expected<Vocab, Error> load(const gguf::GgufFile& file, const VocabDefaults& defaults);

  int32_t size() const { return static_cast<int32_t>(texts_.size()); }
  bool valid(TokenId id) const { return id >= 0 && id < size(); }
  const std::string& text(TokenId id) const { return texts_[id]; }
  float score(TokenId id) const { return scores_[id]; }
  uint32_t attr(TokenId id) const { return attrs_[id]; }
  // The id whose text is exactly `text`, or -1.
  TokenId find(std::string_view text) const;

  // Splits `text` around special tokens, longest first: user-defined tokens always, control
  // and unknown tokens only when `parse_special`.
  std::vector<TextFragment> partition(std::string_view text, bool parse_special) const;

  bool is_end_of_generation(TokenId id) const { return eog_.contains(id); }

  TokenId bos() const { return bos_; }
  TokenId eos() const { return eos_; }
  TokenId unk() const { return unk_; }
  bool add_bos() const { return add_bos_; }
  bool add_eos() const { return add_eos_; }
  bool add_space_prefix() const { return add_space_prefix_; }
  bool clean_spaces() const { return clean_spaces_; }

 private:
  std::expected<void, Error> read_tokens(const gguf::GgufFile& file);
  std::expected<void, Error> read_special_ids(const gguf::GgufFile& file, const VocabDefaults& defaults);
  void mark_special_tokens(const gguf::GgufFile& file);
  // For each of special_tokens_, whether `text` holds it anywhere.
  std::vector<bool> specials_in(std::string_view text) const;

  std::vector<std::string> texts_;
  std::vector<float> scores_;
  std::vector<uint32_t> attrs_;
  TokenIndex index_;
  std::vector<TokenId> special_tokens_;  // control / user-defined / unknown, longest text first
  // Positions in special_tokens_ by their text's first two bytes, and those of one byte: a text is
  // searched once for them all, not once per token (a model may have thousands of user tokens).
  std::unordered_map<uint16_t, std::vector<uint32_t>> specials_by_prefix_;
  std::vector<uint32_t> one_byte_specials_;
  std::unordered_set<TokenId> eog_;
  TokenId bos_ = -1, eos_ = -1, unk_ = -1;
  bool add_bos_ = false, add_eos_ = false, add_space_prefix_ = false, clean_spaces_ = false;
};

}  // namespace engine
