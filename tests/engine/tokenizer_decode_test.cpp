// Detokenization: the pieces of every test text's tokens give back the text (byte-level BPE
// exactly; SentencePiece with its prefix space dropped), decode() follows llama.cpp (leading-space
// removal, clean-up of spaces for gpt-2 / llama3 vocabularies), and control tokens print only
// when asked.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/vocab_tokenizer.h"
#include "engine/tools/tokenizer_cases.h"
#include "tests/common/testdata.h"

namespace {

std::unique_ptr<engine::Tokenizer> load_tokenizer(const std::filesystem::path& path) {
  auto file = engine::gguf::GgufFile::open(path.string());
  REQUIRE(file.has_value());
  auto tokenizer = engine::Tokenizer::from_gguf(*file);
  if (!tokenizer) FAIL(tokenizer.error().message);
  return std::move(*tokenizer);
}

bool has_clean_up_pattern(const std::string& text) {
  for (const char* pattern : {" ?", " !", " .", " ,", " ' ", " 's", " 'm", " 're", " 've"})
    if (text.find(pattern) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("Byte-level BPE detokenizes every test text back to itself", "[engine]") {
  ARENA_REQUIRE_TESTDATA(dir, "tokenizers");
  for (const std::string name : {"vocab-qwen3", "vocab-llama3", "ggml-vocab-gpt-2"}) {
    const auto tokenizer = load_tokenizer(dir / (name + ".gguf"));
    const auto texts = engine::read_tokenizer_cases((dir / (name + ".inp")).string());
    REQUIRE(texts.has_value());
    size_t num_cleaned = 0;
    for (const std::string& text : *texts) {
      INFO(name << ": '" << text << "'");
      const auto ids = tokenizer->encode(text, false, false);
      std::string pieces;
      for (const auto id : ids) pieces += tokenizer->token_to_piece(id);
      CHECK(pieces == text);
      if (name == "vocab-qwen3" || !has_clean_up_pattern(text)) {
        CHECK(tokenizer->decode(ids) == text);  // qwen2 vocabularies keep spaces as they are
      } else {
        ++num_cleaned;
        CHECK(tokenizer->decode(ids) != text);  // gpt-2 / llama3 clean up " ?" and friends
      }
    }
    if (name != "vocab-qwen3") CHECK(num_cleaned > 0);
  }
}

TEST_CASE("SentencePiece detokenizes test texts back, modulo the prefix space", "[engine]") {
  ARENA_REQUIRE_TESTDATA(dir, "tokenizers");
  for (const std::string name : {"ggml-vocab-llama-spm", "ggml-vocab-phi-3"}) {
    const auto tokenizer = load_tokenizer(dir / (name + ".gguf"));
    const auto texts = engine::read_tokenizer_cases((dir / (name + ".inp")).string());
    REQUIRE(texts.has_value());
    for (const std::string& text : *texts) {
      INFO(name << ": '" << text << "'");
      CHECK(tokenizer->decode(tokenizer->encode(text, false, false)) == text);
      // With BOS first the prefix space is not removed (llama.cpp's detokenize does the same).
      const auto with_bos = tokenizer->encode(text, true, false);
      REQUIRE(with_bos.front() == tokenizer->bos());
      CHECK(tokenizer->decode(with_bos) == (text.empty() ? "" : " " + text));
      CHECK(tokenizer->decode(with_bos, true) == (text.empty() ? "<s>" : "<s> " + text));
    }
  }
}

TEST_CASE("Token pieces: byte fallback, U+2581, control and user-defined tokens", "[engine]") {
  ARENA_REQUIRE_TESTDATA(spm_path, "tokenizers/ggml-vocab-llama-spm.gguf");
  ARENA_REQUIRE_TESTDATA(qwen_path, "tokenizers/vocab-qwen3.gguf");
  const auto spm = load_tokenizer(spm_path);
  CHECK(spm->token_to_piece(13) == "\n");  // <0x0A>
  CHECK(spm->token_to_piece(15043) == " Hello");
  CHECK(spm->token_to_piece(1).empty());  // <s> is a control token
  CHECK(spm->token_to_piece(1, true) == "<s>");
  CHECK(spm->token_to_piece(-1).empty());
  CHECK(spm->token_to_piece(spm->vocab_size()).empty());

  const auto qwen = load_tokenizer(qwen_path);
  CHECK(qwen->token_to_piece(151644).empty());
  CHECK(qwen->token_to_piece(151644, true) == "<|im_start|>");
  CHECK(qwen->token_to_piece(151667) == "<think>");  // user-defined tokens always print
  CHECK(qwen->token_to_piece(220) == " ");           // "Ġ"
  const std::vector<engine::TokenId> chat = {151644, 872, 198, 9707, 151645};
  CHECK(qwen->decode(chat) == "user\nHello");
  CHECK(qwen->decode(chat, true) == "<|im_start|>user\nHello<|im_end|>");
}

TEST_CASE("Clean-up of tokenization spaces follows llama.cpp", "[engine]") {
  CHECK(engine::clean_up_spaces("Hello , world ! Why ? Yes .") == "Hello, world! Why? Yes.");
  CHECK(engine::clean_up_spaces("it ' s") == "it's");
  CHECK(engine::clean_up_spaces("he 's we 're they 've I 'm") == "he's we're they've I'm");
  CHECK(engine::clean_up_spaces("don 't I 'd we 'll") == "don 't I 'd we 'll");
  CHECK(engine::clean_up_spaces("") == "");
  CHECK(engine::clean_up_spaces(" ?") == "?");
}
