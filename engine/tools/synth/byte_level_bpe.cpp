// GPT-2 byte order, pre-tokenization through the tokenizer's qwen2 splitter, and the BPE learner.
#include "engine/tools/synth/byte_level_bpe.h"

#include <tuple>
#include <unordered_map>

#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/unicode.h"

namespace engine::synth {

namespace {

// Bytes GPT-2 keeps as their own code point (listed first in its vocabulary).
bool printable(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

}  // namespace

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
  for (unsigned char c : text) out += unicode::byte_to_unicode(c);
  return out;
}

std::vector<std::string_view> pretokenize(std::string_view text) {
  const auto cpts = unicode::decode_utf8(text);
  std::vector<std::string_view> out;
  size_t at = 0;
  for (size_t num_cpts : split_words(cpts, PreTokenizer::Qwen2)) {
    size_t len = 0;
    for (size_t i = 0; i < num_cpts && at + len < text.size(); ++i)
      len += unicode::utf8_sequence_length(text[at + len]);
    out.push_back(text.substr(at, len));
    at += len;
  }
  return out;
}

std::vector<Merge> learn_merges(const std::map<std::string, int64_t>& word_counts, size_t max_new_tokens) {
  std::vector<std::string> symbols;
  std::unordered_map<std::string, int32_t> ids;
  for (int32_t b = 0; b < 256; ++b) {
    symbols.push_back(unicode::byte_to_unicode(static_cast<uint8_t>(b)));
    ids.emplace(symbols[b], b);
  }

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
