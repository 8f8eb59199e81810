// Unicode helpers for the tokenizers: UTF-8 decoding with llama.cpp's replacement rules,
// codepoint categories (\p{L}, \p{N}, \s, ...) from a generated run table, and GPT-2's
// byte-level mapping of the 256 byte values to printable codepoints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine::unicode {

// Category flags of a codepoint (llama.cpp's grouping of the general categories) plus the
// White_Space property. Every codepoint has exactly one category bit.
enum CodepointFlag : uint16_t {
  kUndefined = 1,     // Cn (unassigned)
  kNumber = 2,        // \p{N}
  kLetter = 4,        // \p{L}
  kSeparator = 8,     // \p{Z}
  kMark = 16,         // \p{M}
  kPunctuation = 32,  // \p{P}
  kSymbol = 64,       // \p{S}
  kControl = 128,     // \p{C} other than Cn
  kWhitespace = 256,  // \s (Unicode White_Space)
};

// One run of the generated table: flags of every codepoint from `first` to the next run's first.
struct CategoryRun {
  uint32_t first;
  uint16_t flags;
};

extern const CategoryRun kCategoryRuns[];
extern const size_t kNumCategoryRuns;
// Unicode version the table was generated from (Python's unicodedata).
extern const char* const kUnicodeVersion;

inline constexpr uint32_t kMaxCodepoint = 0x10FFFF;
inline constexpr uint32_t kReplacementCharacter = 0xFFFD;

// The flags of `cpt` (kUndefined beyond U+10FFFF).
uint16_t flags(uint32_t cpt);

inline bool is_letter(uint32_t cpt) {
  return flags(cpt) & kLetter;
}
inline bool is_number(uint32_t cpt) {
  return flags(cpt) & kNumber;
}
inline bool is_whitespace(uint32_t cpt) {
  return flags(cpt) & kWhitespace;
}

// Length of the UTF-8 sequence a lead byte announces (1 for ASCII and stray continuation bytes).
size_t utf8_sequence_length(char lead);

// Codepoints of `text`; each byte that does not start a well-formed sequence becomes U+FFFD
// (as llama.cpp's unicode_cpts_from_utf8 does).
std::vector<uint32_t> decode_utf8(std::string_view text);

// Appends the UTF-8 encoding of `cpt` (which must be <= U+10FFFF).
void append_utf8(std::string& out, uint32_t cpt);

// GPT-2 byte-level encoding: the UTF-8 of the printable codepoint standing for byte `b`.
const std::string& byte_to_unicode(uint8_t b);
// The byte a byte-level codepoint stands for, or nullopt when `cpt` is not one of the 256.
std::optional<uint8_t> unicode_to_byte(uint32_t cpt);

}  // namespace engine::unicode
