// The word splitters behind split_words(). Each scans the codepoints once, trying the regex's
// alternatives in order at the current position (leftmost alternative wins, as in the regex).
#include "engine/tokenizer/pre_tokenizer.h"

#include "engine/tokenizer/unicode.h"

namespace engine {

namespace {

using unicode::kLetter;
using unicode::kNumber;
using unicode::kWhitespace;

constexpr uint32_t kOutOfRange = 0xFFFFFFFF;

// Shared cursor state: the codepoints, the end of the last emitted word, and the output.
class Scanner {
 public:
  explicit Scanner(std::span<const uint32_t> cpts) : cpts_(cpts) {}

  size_t size() const { return cpts_.size(); }
  uint32_t cpt(size_t pos) const { return pos < cpts_.size() ? cpts_[pos] : kOutOfRange; }
  // Category flags at `pos`; 0 past the end (so "any category" tests fail there).
  uint16_t flags(size_t pos) const { return pos < cpts_.size() ? unicode::flags(cpts_[pos]) : 0; }

  // Ends the current word at `end`; returns its length (0 emits nothing).
  size_t emit(size_t end) {
    const size_t len = end - prev_end_;
    if (len > 0) words_.push_back(len);
    prev_end_ = end;
    return len;
  }

  // Length of an English contraction ('s 't 'm 'd 're 've 'll) at `pos`, or 0.
  size_t contraction(size_t pos, bool ignore_case) const {
    if (cpt(pos) != '\'' || pos + 1 >= size()) return 0;
    const auto lower = [&](uint32_t c) { return ignore_case && c >= 'A' && c <= 'Z' ? c + 32 : c; };
    const uint32_t a = lower(cpt(pos + 1));
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (pos + 2 >= size()) return 0;
    const uint32_t b = lower(cpt(pos + 2));
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
  }

  std::vector<size_t> take() { return std::move(words_); }

 private:
  std::span<const uint32_t> cpts_;
  size_t prev_end_ = 0;
  std::vector<size_t> words_;
};

bool is_other(uint16_t f) {
  return !(f & (kWhitespace | kLetter | kNumber)) && f != 0;
}

std::vector<size_t> split_gpt2(std::span<const uint32_t> cpts) {
  Scanner s(cpts);
  size_t pos = 0;
  while (pos < s.size()) {
    const uint32_t c = s.cpt(pos);
    if (const size_t n = s.contraction(pos, false)) {
      pos += s.emit(pos + n);
      continue;
    }
    // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': an optional space, then one class repeated.
    const uint16_t f2 = c == ' ' ? s.flags(pos + 1) : s.flags(pos);
    if ((f2 & kLetter) || (f2 & kNumber) || is_other(f2)) {
      pos += (c == ' ');
      if (f2 & kLetter) {
        while (s.flags(pos) & kLetter) ++pos;
      } else if (f2 & kNumber) {
        while (s.flags(pos) & kNumber) ++pos;
      } else {
        while (is_other(s.flags(pos))) ++pos;
      }
      s.emit(pos);
      continue;
    }
    size_t num_ws = 0;
    while (s.flags(pos + num_ws) & kWhitespace) ++num_ws;
    if (num_ws > 1 && pos + num_ws < s.size()) {  // \s+(?!\S): leave the last space to the next word
      pos += num_ws - 1;
      s.emit(pos);
      continue;
    }
    if (num_ws > 0) {  // \s+
      pos += num_ws;
      s.emit(pos);
      continue;
    }
    s.emit(++pos);  // no alternative matches: a word of its own
  }
  return s.take();
}

// llama3 (max_digits 3) and qwen2 (max_digits 1).
std::vector<size_t> split_llama3(std::span<const uint32_t> cpts, size_t max_digits) {
  Scanner s(cpts);
  size_t pos = 0;
  while (pos < s.size()) {
    const uint32_t c = s.cpt(pos);
    const uint16_t f = s.flags(pos);
    if (const size_t n = s.contraction(pos, true)) {
      pos += s.emit(pos + n);
      continue;
    }
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if (!(c == '\r' || c == '\n' || (f & kNumber)) && ((f & kLetter) || (s.flags(pos + 1) & kLetter))) {
      ++pos;
      while (s.flags(pos) & kLetter) ++pos;
      s.emit(pos);
      continue;
    }
    // \p{N}{1,max_digits}
    if (f & kNumber) {
      size_t start = pos;
      while (s.flags(pos) & kNumber) {
        if (++pos - start >= max_digits) {
          s.emit(pos);
          start = pos;
        }
      }
      s.emit(pos);
      continue;
    }
    // ' ?[^\s\p{L}\p{N}]+[\r\n]*' (llama.cpp tests the first codepoint's category, not the second's)
    uint16_t f2 = c == ' ' ? s.flags(pos + 1) : f;
    if (!(f2 & (kWhitespace | kLetter | kNumber)) && f != 0) {
      pos += (c == ' ');
      while (is_other(f2)) f2 = s.flags(++pos);
      while (s.cpt(pos) == '\r' || s.cpt(pos) == '\n') ++pos;
      s.emit(pos);
      continue;
    }
    size_t num_ws = 0;
    size_t last_newline_end = 0;
    while (s.flags(pos + num_ws) & kWhitespace) {
      const uint32_t w = s.cpt(pos + num_ws);
      if (w == '\r' || w == '\n') last_newline_end = pos + num_ws + 1;
      ++num_ws;
    }
    if (last_newline_end > 0) {  // \s*[\r\n]+
      pos = last_newline_end;
      s.emit(pos);
      continue;
    }
    if (num_ws > 1 && pos + num_ws < s.size()) {  // \s+(?!\S)
      pos += num_ws - 1;
      s.emit(pos);
      continue;
    }
    if (num_ws > 0) {  // \s+
      pos += num_ws;
      s.emit(pos);
      continue;
    }
    s.emit(++pos);
  }
  return s.take();
}

}  // namespace

std::vector<size_t> split_words(std::span<const uint32_t> cpts, PreTokenizer kind) {
  switch (kind) {
    case PreTokenizer::Gpt2:
      return split_gpt2(cpts);
    case PreTokenizer::Llama3:
      return split_llama3(cpts, 3);
    case PreTokenizer::Qwen2:
      return split_llama3(cpts, 1);
  }
  return {};
}

}  // namespace engine
