// Pre-tokenization for byte-level BPE: splitting text into words before merges, one splitter
// per regex family (written as hand-coded scanners that give the regex's matches, as
// llama.cpp's unicode.cpp does):
//   gpt-2:  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
//           |\s*[\r\n]+|\s+(?!\S)|\s+
//   qwen2:  the llama3 expression with \p{N} (single digits) instead of \p{N}{1,3}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace engine {

enum class PreTokenizer { Gpt2, Llama3, Qwen2 };

// Lengths (in codepoints) of the consecutive words `cpts` splits into; they sum to cpts.size().
std::vector<size_t> split_words(std::span<const uint32_t> cpts, PreTokenizer kind);

}  // namespace engine
