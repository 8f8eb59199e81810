// Fuzz target: tokenizer encode/decode on the five test vocabularies (testdata/tokenizers:
// qwen3, llama3, gpt-2 byte-level BPE; llama-spm and phi-3 SentencePiece). The first byte picks
// the vocabulary and the flags (add_special, parse_special); the rest is the text. Properties:
// every id is inside the vocabulary; without special-token parsing the pieces of the ids spell
// valid UTF-8 text exactly for the byte-level vocabularies (and " " + text for llama-spm, whose
// SentencePiece adds a space prefix); decode never fails.
// The vocabularies are found through $ARENA_TESTDATA, else the path compiled in.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "fuzz/fuzz_check.h"

namespace {

// Whether `s` is valid UTF-8 (shortest forms, no surrogates, at most U+10FFFF). Invalid bytes are
// replaced by U+FFFD before byte-level BPE (as llama.cpp does), so only valid text round-trips.
bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 2) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n;
  }
  return true;
}

struct Vocabulary {
  const char* file;
  bool byte_level;    // pieces spell the text exactly
  bool space_prefix;  // SentencePiece: pieces spell " " + text
  std::unique_ptr<engine::Tokenizer> tokenizer;
};

std::array<Vocabulary, 5>& vocabularies() {
  static std::array<Vocabulary, 5> v{{{"vocab-qwen3.gguf", true, false, nullptr},
                                      {"vocab-llama3.gguf", true, false, nullptr},
                                      {"ggml-vocab-gpt-2.gguf", true, false, nullptr},
                                      {"ggml-vocab-llama-spm.gguf", false, true, nullptr},
                                      {"ggml-vocab-phi-3.gguf", false, false, nullptr}}};
  static const bool loaded = [] {
    const char* env = std::getenv("ARENA_TESTDATA");
    const std::string dir = std::string(env ? env : ARENA_FUZZ_TESTDATA) + "/tokenizers/";
    for (auto& entry : v) {
      auto file = engine::gguf::GgufFile::open(dir + entry.file);
      if (!file) {
        std::fprintf(stderr, "tokenizer_fuzzer: %s (set ARENA_TESTDATA)\n", file.error().message.c_str());
        std::abort();
      }
      auto tokenizer = engine::Tokenizer::from_gguf(*file);
      FUZZ_CHECK(tokenizer.has_value());
      entry.tokenizer = std::move(*tokenizer);
    }
    return true;
  }();
  (void)loaded;
  return v;
}

}  // namespace

// Loads the vocabularies before the first input: their load (up to a minute under load) is not
// the first input's time, which -timeout bounds.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  vocabularies();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  auto& vocab = vocabularies()[data[0] % 5];
  const bool add_special = (data[0] / 5) % 2 == 1;
  const bool parse_special = (data[0] / 10) % 2 == 1;
  const auto text = fuzz::as_text(data + 1, size - 1);
  const auto& tok = *vocab.tokenizer;
  const auto ids = tok.encode(text, add_special, parse_special);
  for (auto id : ids) FUZZ_CHECK(id >= 0 && id < tok.vocab_size());
  (void)tok.decode(ids);
  (void)tok.decode(ids, true);
  if (!add_special && !parse_special && (vocab.byte_level || vocab.space_prefix) && valid_utf8(text)) {
    std::string spelled;
    for (auto id : ids) spelled += tok.token_to_piece(id, true);
    if (vocab.byte_level) {
      FUZZ_CHECK(spelled == text);
    } else if (!text.empty() && text.find("\xE2\x96\x81") == std::string_view::npos) {
      // (A literal U+2581 in the text is SentencePiece's space mark: it decodes as ' '.)
      FUZZ_CHECK(spelled == " " + std::string(text));
    }
  }
  return 0;
}
