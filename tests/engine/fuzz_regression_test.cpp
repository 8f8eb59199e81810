// Regression tests for what the fuzz targets (fuzz/) found in the engine layer, on the inputs
// saved under tests/data/fuzz/:
//   tokenizer-invalid-utf8*: text with invalid UTF-8. Byte-level BPE replaces each invalid byte
//                by U+FFFD before encoding (as llama.cpp does), so the pieces spell valid UTF-8
//                holding U+FFFD, not the input; the fuzz property now applies to valid UTF-8.
//   tokenizer-spm-*: text holding U+2581, SentencePiece's space mark, which decodes as ' ' (as in
//                llama.cpp); the fuzz property now leaves such text out.
//   cli-values-pib-size*: a byte size whose format_bytes ("45.48 PiB") did not parse back; PiB
//                and EiB (and P, E, PB, EB) are read now (tests/engine/planner_overflow_test.cpp).
//   cli-values-*: a synth shape (llama-3-8b, overrides near 2^20) that planned for minutes; synth
//                refuses it at once (tests/engine/synth_limits_test.cpp checks the limits).
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/common/testdata.h"

using arena::test::read_bytes;

namespace {

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

}  // namespace

TEST_CASE("Byte-level BPE encodes invalid UTF-8 as U+FFFD, ids in range", "[engine]") {
  ARENA_REQUIRE_TESTDATA(vocab, "tokenizers/vocab-qwen3.gguf");
  auto file = engine::gguf::GgufFile::open(vocab.string());
  REQUIRE(file);
  auto tokenizer = engine::Tokenizer::from_gguf(*file);
  REQUIRE(tokenizer);
  for (const auto& path : arena::test::fuzz_data_files("tokenizer-invalid-utf8")) {
    const std::string input = read_bytes(path);
    REQUIRE(!input.empty());
    const std::string text = input.substr(1);  // the first byte picked vocabulary and flags
    INFO(path.filename().string());
    REQUIRE_FALSE(valid_utf8(text));
    const auto ids = (*tokenizer)->encode(text, false, false);
    std::string spelled;
    for (auto id : ids) {
      REQUIRE(id >= 0);
      REQUIRE(id < (*tokenizer)->vocab_size());
      spelled += (*tokenizer)->token_to_piece(id, true);
    }
    CHECK(valid_utf8(spelled));
    CHECK(spelled.find("\xEF\xBF\xBD") != std::string::npos);
  }
}

TEST_CASE("SentencePiece decodes a literal U+2581 in the text as a space", "[engine]") {
  ARENA_REQUIRE_TESTDATA(vocab, "tokenizers/ggml-vocab-llama-spm.gguf");
  auto file = engine::gguf::GgufFile::open(vocab.string());
  REQUIRE(file);
  auto tokenizer = engine::Tokenizer::from_gguf(*file);
  REQUIRE(tokenizer);
  for (const auto& path : arena::test::fuzz_data_files("tokenizer-spm-")) {
    const std::string text = read_bytes(path).substr(1);
    std::string expected = " ";  // the space prefix, then the text with each U+2581 as ' '
    for (size_t at = 0; at < text.size();) {
      const bool mark = text.compare(at, 3, "\xE2\x96\x81") == 0;
      expected += mark ? ' ' : text[at];
      at += mark ? 3 : 1;
    }
    std::string spelled;
    for (auto id : (*tokenizer)->encode(text, false, false))
      spelled += (*tokenizer)->token_to_piece(id, true);
    CHECK(spelled == expected);
  }
}
