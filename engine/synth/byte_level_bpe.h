// Byte-level BPE training for the built-in vocabulary: GPT-2's byte-to-unicode symbols, a
// pre-tokenizer for ASCII text that splits as llama.cpp's `qwen2` pre-tokenizer does, and a
// deterministic BPE learner (most frequent adjacent pair first, ties by the pair's text).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace engine::synth {

// Byte b as GPT-2 writes it in a vocabulary: printable bytes stand for themselves, the others
// map to U+0100 upwards (space is "Ġ", newline "Ċ"); UTF-8 encoded.
const std::array<std::string, 256>& gpt2_byte_symbols();

// The 256 bytes in GPT-2's vocabulary order ('!'..'~', '¡'..'¬', '®'..'ÿ', then the rest).
const std::array<uint8_t, 256>& gpt2_byte_order();

// `text` in GPT-2 byte symbols.
std::string to_byte_symbols(std::string_view text);

// Splits text into pre-tokens as the qwen2 regex does for ASCII: contractions ('s 't 're 've 'm
// 'll 'd), an optional non-letter followed by a run of letters, single digits, an optional space
// followed by punctuation (and trailing newlines), newline runs, and spaces (a space run keeps its
// last space for the word that follows). Bytes >= 0x80 count as letters.
std::vector<std::string_view> pretokenize(std::string_view text);

// One learned merge, both sides in byte-symbol form; the merged token is left + right.
struct Merge {
  std::string left;
  std::string right;
};

// Learns merges over pre-token counts (raw bytes -> count) until `max_new_tokens` distinct new
// tokens exist or no adjacent pair is left (every pre-token is then a single token). A merge whose
// result is already a token is kept (it is valid) but adds no token.
std::vector<Merge> learn_merges(const std::map<std::string, int64_t>& word_counts, size_t max_new_tokens);

}  // namespace engine::synth
