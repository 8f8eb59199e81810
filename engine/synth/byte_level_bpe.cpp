// GPT-2 byte symbols, the ASCII qwen2-style pre-tokenizer and the BPE learner.
#include "engine/synth/byte_level_bpe.h"

#include <tuple>
#include <unordered_map>

namespace engine::synth {

namespace {

std::string utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

// Bytes GPT-2 keeps as their own code point.
bool printable(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

bool is_newline(unsigned char c) {
  return c == '\n' || c == '\r';
}
bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}
bool is_letter(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}
bool is_punct(unsigned char c) {
  return !is_space(c) && !is_letter(c) && !is_digit(c);
}

// Length of the pre-token starting at text[i] (the first alternative of the qwen2 regex that matches).
size_t match_at(std::string_view t, size_t i) {
  const size_t n = t.size();
  auto at = [&](size_t k) -> unsigned char { return k < n ? static_cast<unsigned char>(t[k]) : 0; };
  auto lower = [&](size_t k) -> unsigned char {
    const unsigned char c = at(k);
    return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + 32) : c;
  };
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  if (at(i) == '\'') {
    const unsigned char a = lower(i + 1), b = lower(i + 2);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  {
    size_t j = i;
    if (!is_letter(at(j)) && j < n && !is_newline(at(j)) && !is_digit(at(j)) && is_letter(at(j + 1))) ++j;
    if (j < n && is_letter(at(j))) {
      while (j < n && is_letter(at(j))) ++j;
      return j - i;
    }
  }
  // \p{N}
  if (is_digit(at(i))) return 1;
  // ' '?[^\s\p{L}\p{N}]+[\r\n]*
  {
    size_t j = i;
    if (at(j) == ' ' && j + 1 < n && is_punct(at(j + 1))) ++j;
    if (j < n && is_punct(at(j))) {
      while (j < n && is_punct(at(j))) ++j;
      while (j < n && is_newline(at(j))) ++j;
      return j - i;
    }
  }
  // Whitespace: \s*[\r\n]+ | \s+(?!\S) | \s+
  size_t end = i;
  while (end < n && is_space(at(end))) ++end;
  if (end == i) return 1;  // not reached for ASCII: every byte is a letter, digit, punctuation or space
  for (size_t k = end; k > i; --k)
    if (is_newline(at(k - 1))) return k - i;
  if (end == n) return end - i;
  return end - i >= 2 ? end - i - 1 : 1;
}

}  // namespace

const std::array<std::string, 256>& gpt2_byte_symbols() {
  static const std::array<std::string, 256> kSymbols = [] {
    std::array<std::string, 256> s;
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) s[b] = utf8(printable(b) ? static_cast<uint32_t>(b) : next++);
    return s;
  }();
  return kSymbols;
}

const std::array<uint8_t, 256>& gpt2_byte_order() {
  static const std::array<uint8_t, 256> kOrder = [] {
    std::array<uint8_t, 256> order{};
    size_t k = 0;
    for (int b = 0; b < 256; ++b)
      if (printable(b)) order[k++] = static_cast<uint8_t>(b);
    for (int b = 0; b < 256; ++b)
      if (!printable(b)) order[k++] = static_cast<uint8_t>(b);
    return order;
  }();
  return kOrder;
}

std::string to_byte_symbols(std::string_view text) {
  std::string out;
  for (unsigned char c : text) out += gpt2_byte_symbols()[c];
  return out;
}

std::vector<std::string_view> pretokenize(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < text.size();) {
    const size_t len = match_at(text, i);
    out.push_back(text.substr(i, len));
    i += len;
  }
  return out;
}

std::vector<Merge> learn_merges(const std::map<std::string, int64_t>& word_counts, size_t max_new_tokens) {
  std::vector<std::string> symbols(gpt2_byte_symbols().begin(), gpt2_byte_symbols().end());
  std::unordered_map<std::string, int32_t> ids;
  for (int32_t b = 0; b < 256; ++b) ids.emplace(symbols[b], b);

  struct Word {
    std::vector<int32_t> ids;
    int64_t count;
  };
  std::vector<Word> words;
  for (const auto& [text, count] : word_counts) {
    Word w{{}, count};
    for (unsigned char c : text) w.ids.push_back(c);
    if (w.ids.size() > 1) words.push_back(std::move(w));
  }

  std::vector<Merge> merges;
  std::unordered_map<uint64_t, int64_t> pair_counts;
  auto key = [](int32_t a, int32_t b) { return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b); };
  size_t num_new = 0;
  while (num_new < max_new_tokens) {
    pair_counts.clear();
    for (const auto& w : words)
      for (size_t k = 0; k + 1 < w.ids.size(); ++k) pair_counts[key(w.ids[k], w.ids[k + 1])] += w.count;
    if (pair_counts.empty()) break;

    // The most frequent pair; among equals the one whose (left, right) text sorts first.
    int64_t best_count = 0;
    int32_t best_a = -1, best_b = -1;
    for (const auto& [k, count] : pair_counts) {
      const auto a = static_cast<int32_t>(k >> 32), b = static_cast<int32_t>(k & 0xffffffffu);
      if (count > best_count || (count == best_count && std::tie(symbols[a], symbols[b]) <
                                                            std::tie(symbols[best_a], symbols[best_b]))) {
        best_count = count;
        best_a = a;
        best_b = b;
      }
    }

    const std::string merged = symbols[best_a] + symbols[best_b];
    auto [it, inserted] = ids.emplace(merged, static_cast<int32_t>(symbols.size()));
    if (inserted) {
      symbols.push_back(merged);
      ++num_new;
    }
    merges.push_back({symbols[best_a], symbols[best_b]});

    // Replace every occurrence of the pair, left to right, in every word.
    const int32_t merged_id = it->second;
    for (auto& w : words) {
      size_t out = 0;
      for (size_t k = 0; k < w.ids.size(); ++k) {
        if (k + 1 < w.ids.size() && w.ids[k] == best_a && w.ids[k + 1] == best_b) {
          w.ids[out++] = merged_id;
          ++k;
        } else {
          w.ids[out++] = w.ids[k];
        }
      }
      w.ids.resize(out);
    }
    std::erase_if(words, [](const Word& w) { return w.ids.size() < 2; });
  }
  return merges;
}

}  // namespace engine::synth
