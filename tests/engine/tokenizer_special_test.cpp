// Special tokens on the real vocabularies: parsing from text on and off (user-defined tokens are
// split out even when off, as llama.cpp does), BOS/EOS, end-of-generation and control ids,
// and Phi-3's whitespace-swallowing special tokens.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/common/testdata.h"

namespace {

using Ids = std::vector<engine::TokenId>;

std::unique_ptr<engine::Tokenizer> load_tokenizer(const std::string& relative) {
  const auto path = arena::test::testdata_file(relative);
  if (!path) return nullptr;
  auto file = engine::gguf::GgufFile::open(path->string());
  REQUIRE(file.has_value());
  auto tokenizer = engine::Tokenizer::from_gguf(*file);
  if (!tokenizer) FAIL(tokenizer.error().message);
  return std::move(*tokenizer);
}

bool contains(const Ids& ids, engine::TokenId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

TEST_CASE("Qwen3 special tokens: parsed only when asked, user-defined ones always", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "tokenizers/vocab-qwen3.gguf");
  const auto qwen = load_tokenizer("tokenizers/vocab-qwen3.gguf");
  const std::string text = "<|im_start|>user\nHello<|im_end|>";
  CHECK(qwen->encode(text, false, true) == Ids{151644, 872, 198, 9707, 151645});
  const Ids plain = qwen->encode(text, false, false);
  CHECK_FALSE(contains(plain, 151644));
  CHECK_FALSE(contains(plain, 151645));
  CHECK(qwen->decode(plain) == text);

  // <think> is user-defined: split out even without parse_special. <|fim_prefix|> is
  // user-defined too but llama.cpp treats FIM tokens as control, so it stays text.
  CHECK(contains(qwen->encode("a<think>b", false, false), 151667));
  CHECK_FALSE(contains(qwen->encode("a<|fim_prefix|>b", false, false), 151659));
  CHECK(contains(qwen->encode("a<|fim_prefix|>b", false, true), 151659));

  // No BOS in this vocabulary; EOS is <|im_end|>.
  CHECK(qwen->bos() == -1);
  CHECK(qwen->eos() == 151645);
  CHECK(qwen->encode("Hello", true, false) == Ids{9707});
  CHECK(qwen->vocab_size() == 151669);

  for (const engine::TokenId id :
       {151645, 151643, 151662, 151663, 151664}) {  // im_end, endoftext, fim pad/repo/sep
    INFO("id " << id);
    CHECK(qwen->is_end_of_generation(id));
  }
  CHECK_FALSE(qwen->is_end_of_generation(151644));
  CHECK_FALSE(qwen->is_end_of_generation(9707));
  CHECK(qwen->is_control(151644));
  CHECK_FALSE(qwen->is_control(151667));
  CHECK_FALSE(qwen->is_control(9707));
  CHECK_FALSE(qwen->is_control(-5));
}

TEST_CASE("Llama 3 special tokens, BOS and end of turn", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "tokenizers/vocab-llama3.gguf");
  const auto llama3 = load_tokenizer("tokenizers/vocab-llama3.gguf");
  CHECK(llama3->bos() == 128000);
  CHECK(llama3->eos() == 128001);
  const Ids ids = llama3->encode("<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>", true, true);
  REQUIRE(ids.size() >= 4);
  CHECK(ids.front() == 128000);
  CHECK(ids[1] == 128006);
  CHECK(ids.back() == 128009);
  CHECK(llama3->is_end_of_generation(128009));
  CHECK(llama3->is_end_of_generation(128001));
  CHECK_FALSE(llama3->is_end_of_generation(128000));
  CHECK(llama3->encode("<|eot_id|>", false, false).size() > 1);  // as text it is several tokens
}

TEST_CASE("SentencePiece special tokens and BOS", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "tokenizers/ggml-vocab-llama-spm.gguf");
  const auto spm = load_tokenizer("tokenizers/ggml-vocab-llama-spm.gguf");
  CHECK(spm->bos() == 1);
  CHECK(spm->eos() == 2);
  CHECK(spm->encode("Hello", true, false) == Ids{1, 15043});
  CHECK(spm->encode("Hello", false, false) == Ids{15043});
  // After a parsed special token the text gets the space prefix again.
  CHECK(spm->encode("<s>Hello</s>", false, true) == Ids{1, 15043, 2});
  CHECK_FALSE(contains(spm->encode("<s>Hello", false, false), 1));
  CHECK(spm->encode("", true, false) == Ids{1});
  CHECK(spm->encode("", false, false).empty());
  CHECK(spm->is_end_of_generation(2));
  CHECK(spm->is_control(1));
  CHECK_FALSE(spm->is_control(15043));
}

TEST_CASE("Phi-3 special tokens swallow the whitespace after them", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "tokenizers/ggml-vocab-phi-3.gguf");
  const auto phi3 = load_tokenizer("tokenizers/ggml-vocab-phi-3.gguf");
  const Ids tight = phi3->encode("<|user|>Hello<|end|>", false, true);
  CHECK(tight == phi3->encode("<|user|>\n  Hello<|end|>\n", false, true));
  CHECK(tight.front() == 32010);
  CHECK(tight.back() == 32007);
  CHECK(phi3->is_end_of_generation(32007));  // <|end|>
  CHECK(phi3->is_end_of_generation(32000));  // <|endoftext|>, the EOS
}
