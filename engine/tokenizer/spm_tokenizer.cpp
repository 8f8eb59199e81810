// SentencePiece BPE as llama.cpp's llm_tokenizer_spm runs it: start from UTF-8 characters, keep
// merging the adjacent pair whose concatenation is the highest-scoring token (leftmost on ties),
// then emit each piece's token or, failing that, its bytes as byte-fallback tokens.
#include "engine/tokenizer/spm_tokenizer.h"

#include <fmt/format.h>

#include <array>
#include <queue>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/unicode.h"
#include "engine/tokenizer/vocab_tokenizer.h"

namespace engine {

namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's space

class SpmTokenizer final : public VocabTokenizer {
 public:
  explicit SpmTokenizer(Vocab vocab) : VocabTokenizer(std::move(vocab)) {
    for (int b = 0; b < 256; ++b) {
      TokenId id = vocab_.find(fmt::format("<0x{:02X}>", b));
      if (id < 0) id = vocab_.find(std::string(1, static_cast<char>(b)));
      byte_tokens_[b] = id >= 0 ? id : vocab_.unk();
    }
  }

 protected:
  void encode_text(std::string_view text, bool after_special, std::vector<TokenId>& out) const override;

  std::string normal_piece(const std::string& text) const override {
    std::string piece;
    piece.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
      if (text.compare(i, kSpaceMark.size(), kSpaceMark) == 0) {
        piece += ' ';
        i += kSpaceMark.size();
      } else {
        piece += text[i++];
      }
    }
    return piece;
  }

 private:
  std::array<TokenId, 256> byte_tokens_{};  // <0xXX> token of each byte (unk when missing)
};

// A piece of the text being merged; pieces form a linked list, merged-away ones have length 0.
struct Symbol {
  size_t start = 0;
  size_t length = 0;
  int prev = -1;
  int next = -1;
};

struct Bigram {
  float score;
  int left;
  int right;
  size_t length;
};

struct BigramOrder {
  // Highest score first, then leftmost.
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

void SpmTokenizer::encode_text(std::string_view raw, bool after_special, std::vector<TokenId>& out) const {
  std::string text;
  if (vocab_.add_space_prefix() && after_special) text = " ";
  text += raw;
  // Escape spaces as U+2581.
  std::string escaped;
  escaped.reserve(text.size() + text.size() / 2);
  for (char c : text) c == ' ' ? escaped.append(kSpaceMark) : escaped.append(1, c);
  if (escaped.empty()) return;

  std::vector<Symbol> symbols;
  for (size_t offset = 0; offset < escaped.size();) {
    const size_t length = std::min(unicode::utf8_sequence_length(escaped[offset]), escaped.size() - offset);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({offset, length, index - 1, offset + length == escaped.size() ? -1 : index + 1});
    offset += length;
  }

  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue;
  const auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const std::string_view joined(escaped.data() + symbols[left].start,
                                  symbols[left].length + symbols[right].length);
    const TokenId id = vocab_.find(joined);
    if (id < 0) return;
    queue.push({vocab_.score(id), left, right, joined.size()});
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) try_add(i - 1, i);

  while (!queue.empty()) {
    const Bigram bigram = queue.top();
    queue.pop();
    Symbol& left = symbols[bigram.left];
    Symbol& right = symbols[bigram.right];
    // Stale: one side was merged away or grew since the bigram was queued.
    if (left.length == 0 || right.length == 0 || left.length + right.length != bigram.length) continue;
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = bigram.left;
    try_add(left.prev, bigram.left);
    try_add(bigram.left, left.next);
  }

  for (int i = 0; i != -1; i = symbols[i].next) {
    const std::string_view piece(escaped.data() + symbols[i].start, symbols[i].length);
    if (const TokenId id = vocab_.find(piece); id >= 0) {
      out.push_back(id);
      continue;
    }
    for (char c : piece) {
      const TokenId id = byte_tokens_[static_cast<unsigned char>(c)];
      if (id >= 0) out.push_back(id);
    }
  }
}

}  // namespace

std::expected<std::unique_ptr<Tokenizer>, Error> make_spm_tokenizer(const gguf::GgufFile& file) {
  if (!file.find("tokenizer.ggml.scores"))
    return std::unexpected(Error{fmt::format(
        "{}: tokenizer.ggml.scores is missing (a SentencePiece vocabulary needs its merge scores)",
        file.path())});
  VocabDefaults defaults;
  defaults.bos = 1;  // llama.cpp's SentencePiece defaults
  defaults.eos = 2;
  defaults.unk = 0;
  defaults.add_bos = true;
  defaults.add_space_prefix = true;
  auto vocab = Vocab::load(file, defaults);
  if (!vocab) return std::unexpected(vocab.error());
  return std::make_unique<SpmTokenizer>(std::move(*vocab));
}

}  // namespace engine
