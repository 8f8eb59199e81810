// Encoding frame (partition, BOS/EOS), token pieces and detokenization shared by the
// SentencePiece and byte-level BPE tokenizers; behaviour follows llama.cpp's llama_vocab.
#include "engine/tokenizer/vocab_tokenizer.h"

#include <charconv>

namespace engine {

std::vector<TokenId> VocabTokenizer::encode(std::string_view text, bool add_special,
                                            bool parse_special) const {
  std::vector<TokenId> out;
  if (add_special && vocab_.add_bos()) out.push_back(vocab_.bos());
  bool after_special = true;
  for (const TextFragment& fragment : vocab_.partition(text, parse_special)) {
    if (fragment.is_token()) {
      out.push_back(fragment.token);
      after_special = true;
    } else {
      encode_text(text.substr(fragment.offset, fragment.length), after_special, out);
      after_special = false;
    }
  }
  if (add_special && vocab_.add_eos()) out.push_back(vocab_.eos());
  return out;
}

std::string VocabTokenizer::token_to_piece(TokenId id, bool special) const {
  if (!vocab_.valid(id)) return {};
  const uint32_t attr = vocab_.attr(id);
  const std::string& text = vocab_.text(id);
  if (attr & (kAttrUnknown | kAttrControl)) return special ? text : std::string();
  if (attr & kAttrUserDefined) return text;
  if (attr & kAttrNormal) return normal_piece(text);
  if (attr & kAttrByte) {
    // "<0xAB>" stands for the byte 0xAB.
    unsigned value = 0;
    if (text.size() == 6 && text.starts_with("<0x") &&
        std::from_chars(text.data() + 3, text.data() + 5, value, 16).ptr == text.data() + 5)
      return std::string(1, static_cast<char>(value));
  }
  return {};  // unused / undefined token types print nothing
}

std::string VocabTokenizer::decode(std::span<const TokenId> ids, bool special) const {
  std::string text;
  bool remove_space = vocab_.add_space_prefix();  // SentencePiece: drop the prefix space it added
  for (const TokenId id : ids) {
    std::string piece = token_to_piece(id, special);
    if (remove_space && !piece.empty() && piece.front() == ' ') piece.erase(0, 1);
    remove_space = false;
    text += piece;
  }
  return vocab_.clean_spaces() ? clean_up_spaces(std::move(text)) : text;
}

std::string clean_up_spaces(std::string text) {
  // Three in-place passes, each compacting text[0, total) (the same steps as llama.cpp).
  size_t total = text.size();

  const size_t total1 = total;  // " ?", " !", " .", " ," lose the space
  total = total1 ? 1 : 0;
  for (size_t i = 1; i < total1; ++i) {
    const char x = text[i];
    if (text[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) --total;
    text[total++] = x;
  }

  const size_t total2 = total;  // " ' " becomes "'"
  total = total2 ? 1 : 0;
  for (size_t i = 1; i < total2; ++i) {
    const char x = text[i];
    if (x == '\'' && i + 1 < total2 && text[i - 1] == ' ' && text[i + 1] == ' ') {
      --total;
      text[++i] = '\0';
    }
    text[total++] = x;
  }

  const size_t total3 = total;  // " 's", " 'm", " 're", " 've" lose the space
  total = total3 ? 1 : 0;
  for (size_t i = 1; i < total3; ++i) {
    const char x = text[i];
    if (text[i - 1] == ' ' && x == '\'' && i + 1 < total3) {
      const char x1 = text[i + 1];
      if (x1 == 's' || x1 == 'm') {
        --total;
      } else if (x1 != 't' && x1 != 'd' && i + 2 < total3) {
        const char x2 = text[i + 2];
        if ((x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e')) --total;
      }
    }
    text[total++] = x;
  }
  text.resize(total);
  return text;
}

}  // namespace engine
