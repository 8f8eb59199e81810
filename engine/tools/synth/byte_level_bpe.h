// Byte-level BPE training for the built-in vocabulary: GPT-2's byte order, pre-tokenization as
// llama.cpp's `qwen2` pre-tokenizer splits, and a deterministic BPE learner (most frequent
// adjacent pair first, ties by the pair's text).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace engine::synth {

// The 256 bytes in GPT-2's vocabulary order ('!'..'~', '¡'..'¬', '®'..'ÿ', then the rest).
const std::array<uint8_t, 256>& gpt2_byte_order();

// `text` in GPT-2 byte symbols (space "Ġ", newline "Ċ", ...).
std::string to_byte_symbols(std::string_view text);

// Splits UTF-8 text into pre-tokens with the tokenizer's qwen2 splitter (llama.cpp's `qwen2`
// pre-tokenizer), so merges are learned within the words the tokenizer will see.
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
