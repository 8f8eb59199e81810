// UTF-8 decoding/encoding, category lookup over the generated run table (binary search, with
// a direct table for ASCII), and the GPT-2 byte <-> codepoint mapping.
#include "engine/tokenizer/unicode.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace engine::unicode {

namespace {

uint16_t flags_from_table(uint32_t cpt) {
  const CategoryRun* begin = kCategoryRuns;
  const CategoryRun* end = kCategoryRuns + kNumCategoryRuns;
  // The last run whose first codepoint is <= cpt; the table starts at U+0000.
  const CategoryRun* it =
      std::upper_bound(begin, end, cpt, [](uint32_t c, const CategoryRun& run) { return c < run.first; });
  return (it - 1)->flags;
}

const std::array<uint16_t, 128>& ascii_flags() {
  static const std::array<uint16_t, 128> table = [] {
    std::array<uint16_t, 128> t{};
    for (uint32_t c = 0; c < 128; ++c) t[c] = flags_from_table(c);
    return t;
  }();
  return table;
}

// GPT-2's bytes_to_unicode: printable Latin-1 bytes map to themselves, the other 68 bytes to
// U+0100 onwards in byte order.
struct ByteLevelTables {
  std::array<std::string, 256> byte_to_utf8;
  std::array<int16_t, 512> cpt_to_byte;  // codepoints used are all below U+0200

  ByteLevelTables() {
    cpt_to_byte.fill(-1);
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t cpt = printable ? static_cast<uint32_t>(b) : next++;
      append_utf8(byte_to_utf8[b], cpt);
      cpt_to_byte[cpt] = static_cast<int16_t>(b);
    }
  }
};

const ByteLevelTables& byte_level() {
  static const ByteLevelTables tables;
  return tables;
}

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

}  // namespace

uint16_t flags(uint32_t cpt) {
  if (cpt < 128) return ascii_flags()[cpt];
  if (cpt > kMaxCodepoint) return kUndefined;
  return flags_from_table(cpt);
}

size_t utf8_sequence_length(char lead) {
  static constexpr size_t kLengths[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLengths[static_cast<unsigned char>(lead) >> 4];
}

std::vector<uint32_t> decode_utf8(std::string_view text) {
  std::vector<uint32_t> out;
  out.reserve(text.size());
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      out.push_back(c);
      i += 1;
    } else if ((c & 0xE0) == 0xC0 && i + 1 < text.size() && is_continuation(byte(i + 1))) {
      out.push_back(((c & 0x1Fu) << 6) | (byte(i + 1) & 0x3Fu));
      i += 2;
    } else if ((c & 0xF0) == 0xE0 && i + 2 < text.size() && is_continuation(byte(i + 1)) &&
               is_continuation(byte(i + 2))) {
      out.push_back(((c & 0x0Fu) << 12) | ((byte(i + 1) & 0x3Fu) << 6) | (byte(i + 2) & 0x3Fu));
      i += 3;
    } else if ((c & 0xF8) == 0xF0 && i + 3 < text.size() && is_continuation(byte(i + 1)) &&
               is_continuation(byte(i + 2)) && is_continuation(byte(i + 3)) &&
               (((c & 0x07u) << 18) | ((byte(i + 1) & 0x3Fu) << 12)) <= kMaxCodepoint) {
      out.push_back(((c & 0x07u) << 18) | ((byte(i + 1) & 0x3Fu) << 12) | ((byte(i + 2) & 0x3Fu) << 6) |
                    (byte(i + 3) & 0x3Fu));
      i += 4;
    } else {
      // Stray continuation byte, truncated or over-long sequence: one byte becomes U+FFFD.
      out.push_back(kReplacementCharacter);
      i += 1;
    }
  }
  return out;
}

void append_utf8(std::string& out, uint32_t cpt) {
  assert(cpt <= kMaxCodepoint);
  if (cpt < 0x80) {
    out.push_back(static_cast<char>(cpt));
  } else if (cpt < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cpt >> 6)));
    out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
  } else if (cpt < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cpt >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cpt >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cpt >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cpt >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cpt >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
  }
}

const std::string& byte_to_unicode(uint8_t b) {
  return byte_level().byte_to_utf8[b];
}

std::optional<uint8_t> unicode_to_byte(uint32_t cpt) {
  if (cpt >= byte_level().cpt_to_byte.size()) return std::nullopt;
  const int16_t b = byte_level().cpt_to_byte[cpt];
  if (b < 0) return std::nullopt;
  return static_cast<uint8_t>(b);
}

}  // namespace engine::unicode
