// The tokenizer's Unicode layer and pre-tokenizers in isolation: category flags from the
// generated table (Unicode 15.1), UTF-8 decoding with U+FFFD for malformed bytes (and what byte-level BPE
// then does with them), GPT-2's byte mapping, and the word splits of the three regex families.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/unicode.h"
#include "tests/common/testdata.h"

namespace {

namespace u = engine::unicode;

// `text` split into words by `kind`, as UTF-8 strings.
std::vector<std::string> words(std::string_view text, engine::PreTokenizer kind) {
  const auto cpts = u::decode_utf8(text);
  std::vector<std::string> out;
  size_t start = 0;
  for (const size_t length : engine::split_words(cpts, kind)) {
    std::string word;
    for (size_t i = start; i < start + length; ++i) u::append_utf8(word, cpts[i]);
    out.push_back(word);
    start += length;
  }
  REQUIRE(start == cpts.size());
  return out;
}

using Words = std::vector<std::string>;

}  // namespace

TEST_CASE("Unicode category flags", "[engine]") {
  CHECK(u::flags('A') == u::kLetter);
  CHECK(u::flags('5') == u::kNumber);
  CHECK(u::flags(' ') == (u::kSeparator | u::kWhitespace));
  CHECK(u::flags('\n') == (u::kControl | u::kWhitespace));
  CHECK(u::flags('!') == u::kPunctuation);
  CHECK(u::flags('$') == u::kSymbol);
  CHECK(u::flags(0x00BD) == u::kNumber);  // ½
  CHECK(u::flags(0x00A0) == (u::kSeparator | u::kWhitespace));
  CHECK(u::flags(0x3000) == (u::kSeparator | u::kWhitespace));
  CHECK(u::flags(0x0301) == u::kMark);     // combining acute accent
  CHECK(u::flags(0xAC00) == u::kLetter);   // 가
  CHECK(u::flags(0x1F642) == u::kSymbol);  // 🙂
  CHECK(u::flags(0xE000) == u::kControl);  // private use
  CHECK(u::flags(0x0378) == u::kUndefined);
  CHECK(u::flags(0x110000) == u::kUndefined);
  CHECK_FALSE(u::is_whitespace(0x200B));  // zero width space is not White_Space
  CHECK(std::string(u::kUnicodeVersion).size() >= 5);
}

TEST_CASE("Unicode categories follow Unicode 15.1, as llama.cpp's tables", "[engine]") {
  // Added in 15.0 / 15.1; a Unicode 14 table has them unassigned, which splits BPE words
  // differently from llama.cpp (e.g. a Kawi digit after a space).
  CHECK(std::string(u::kUnicodeVersion) == "15.1.0");
  CHECK(u::flags(0x11F52) == u::kNumber);   // KAWI DIGIT TWO
  CHECK(u::flags(0x11F04) == u::kLetter);   // KAWI LETTER A
  CHECK(u::flags(0x1E4D0) == u::kLetter);   // NAG MUNDARI LETTER O
  CHECK(u::flags(0x1D2C0) == u::kNumber);   // KAKTOVIK NUMERAL ZERO
  CHECK(u::flags(0x13439) == u::kControl);  // EGYPTIAN HIEROGLYPH INSERT AT MIDDLE (Cf)
  CHECK(u::flags(0x2EBF0) == u::kLetter);   // CJK Extension I (15.1)
  CHECK(u::flags(0x2FFC) == u::kSymbol);    // IDEOGRAPHIC DESCRIPTION CHARACTER (15.1)
  CHECK(u::flags(0x2EE5E) == u::kUndefined);
}

TEST_CASE("UTF-8 decoding replaces each malformed byte with U+FFFD", "[engine]") {
  using Cpts = std::vector<uint32_t>;
  CHECK(u::decode_utf8("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x99\x82") == Cpts{'a', 0xE9, 0x20AC, 0x1F642});
  CHECK(u::decode_utf8("\xFF") == Cpts{0xFFFD});
  CHECK(u::decode_utf8("\x80z") == Cpts{0xFFFD, 'z'});           // stray continuation byte
  CHECK(u::decode_utf8("\xE2\x82") == Cpts{0xFFFD, 0xFFFD});     // truncated sequence
  CHECK(u::decode_utf8("\xF5\x80\x80\x80") == Cpts(4, 0xFFFD));  // beyond U+10FFFF
  std::string s;
  for (uint32_t c : {0x24u, 0xA2u, 0x20ACu, 0x10348u}) u::append_utf8(s, c);
  CHECK(s == "$\xC2\xA2\xE2\x82\xAC\xF0\x90\x8D\x88");
}

TEST_CASE("GPT-2 byte-level mapping covers all 256 bytes", "[engine]") {
  CHECK(u::byte_to_unicode('A') == "A");
  CHECK(u::byte_to_unicode(' ') == "\xC4\xA0");   // Ġ
  CHECK(u::byte_to_unicode('\n') == "\xC4\x8A");  // Ċ
  for (int b = 0; b < 256; ++b) {
    const auto cpts = u::decode_utf8(u::byte_to_unicode(static_cast<uint8_t>(b)));
    REQUIRE(cpts.size() == 1);
    CHECK(u::unicode_to_byte(cpts[0]) == static_cast<uint8_t>(b));
  }
  CHECK_FALSE(u::unicode_to_byte(0x4E00).has_value());
}

TEST_CASE("Pre-tokenizers split words as their regexes do", "[engine]") {
  using engine::PreTokenizer;
  CHECK(words("Hello world's  123 !!", PreTokenizer::Gpt2) ==
        Words{"Hello", " world", "'s", " ", " 123", " !!"});
  CHECK(words("I'M here\n\n  x", PreTokenizer::Gpt2) == Words{"I", "'", "M", " here", "\n\n ", " x"});
  CHECK(words("Hello world's  12345\n\n x", PreTokenizer::Llama3) ==
        Words{"Hello", " world", "'s", " ", " ", "123", "45", "\n\n", " x"});
  CHECK(words("I'M ...\n", PreTokenizer::Llama3) == Words{"I", "'M", " ...\n"});
  CHECK(words("12345 a1", PreTokenizer::Qwen2) == Words{"1", "2", "3", "4", "5", " a", "1"});
  CHECK(words("", PreTokenizer::Qwen2).empty());
}

TEST_CASE("Byte-level BPE encodes malformed UTF-8 as U+FFFD, as llama.cpp does", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "tokenizers/vocab-qwen3.gguf");
  auto file = engine::gguf::GgufFile::open(path.string());
  REQUIRE(file.has_value());
  auto tokenizer = engine::Tokenizer::from_gguf(*file);
  REQUIRE(tokenizer.has_value());
  const auto& t = **tokenizer;
  CHECK(t.decode(t.encode("a\xFF", false, false)) == "a\xEF\xBF\xBD");
  CHECK(t.encode("a\xFF", false, false) == t.encode("a\xEF\xBF\xBD", false, false));
}
