// Tokenizer conformance against llama.cpp: every line of the five vocabularies' .out files
// (add_special and parse_special off), and the tokenize cases of the reference runs on the two
// test models (special tokens parsed, with and without BOS/EOS).
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
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

std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Tokenizes every text of <name>.inp and compares with <name>.out; returns the matching count.
void check_vectors(const std::string& name) {
  ARENA_REQUIRE_TESTDATA(dir, "tokenizers");
  const auto tokenizer = load_tokenizer(dir / (name + ".gguf"));
  const auto texts = engine::read_tokenizer_cases((dir / (name + ".inp")).string());
  REQUIRE(texts.has_value());
  const auto expected = read_lines(dir / (name + ".out"));
  REQUIRE(texts->size() == expected.size());
  size_t num_matching = 0;
  for (size_t i = 0; i < texts->size(); ++i) {
    const std::string got = engine::format_ids_line(tokenizer->encode((*texts)[i], false, false));
    INFO(name << " text " << i << ": '" << (*texts)[i] << "'");
    CHECK(got == expected[i]);
    num_matching += got == expected[i];
  }
  CHECK(num_matching == texts->size());
}

}  // namespace

TEST_CASE("Tokenizer reproduces llama.cpp's vectors: qwen3 (BPE, qwen2 pre-tokenizer)", "[engine]") {
  check_vectors("vocab-qwen3");
}

TEST_CASE("Tokenizer reproduces llama.cpp's vectors: llama3 (BPE, llama-bpe pre-tokenizer)", "[engine]") {
  check_vectors("vocab-llama3");
}

TEST_CASE("Tokenizer reproduces llama.cpp's vectors: gpt-2 (BPE)", "[engine]") {
  check_vectors("ggml-vocab-gpt-2");
}

TEST_CASE("Tokenizer reproduces llama.cpp's vectors: llama (SentencePiece)", "[engine]") {
  check_vectors("ggml-vocab-llama-spm");
}

TEST_CASE("Tokenizer reproduces llama.cpp's vectors: phi-3 (SentencePiece)", "[engine]") {
  check_vectors("ggml-vocab-phi-3");
}

TEST_CASE("Tokenizer matches llama.cpp's tokenize cases on the test models", "[engine]") {
  for (const std::string model : {"llama-spm-gqa-f16", "qwen2-bpe-tied-f32"}) {
    ARENA_REQUIRE_TESTDATA(gguf, "models/" + model + ".gguf");
    ARENA_REQUIRE_TESTDATA(reference, "reference/" + model + ".jsonl");
    const auto tokenizer = load_tokenizer(gguf);
    size_t num_cases = 0;
    std::ifstream in(reference);
    for (std::string line; std::getline(in, line);) {
      const auto record = nlohmann::json::parse(line);
      if (record.at("kind") != "tokenize") continue;
      const std::string text = record.at("text");
      const bool add_special = record.at("add_special");
      const auto expected = record.at("ids").get<std::vector<engine::TokenId>>();
      INFO(model << " add_special=" << add_special << " text '" << text << "'");
      CHECK(tokenizer->encode(text, add_special, true) == expected);
      ++num_cases;
    }
    CHECK(num_cases == 12);
  }
}
