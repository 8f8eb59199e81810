// Tokenizer conformance on tests/data/tokenizer/llama_cpp_cases.jsonl: texts with llama.cpp's
// ids (llama-tokenize of the reference build, with and without BOS, special tokens parsed or
// not) for the five test vocabularies. The classes: whitespace-only texts on Phi-3 and Llama-SPM
// (every Unicode space, runs, mixes, a leading space; issue 11's Phi-3 case), special-token
// texts with whitespace around them (Phi-3's "</s>" is user-defined: split out even when special
// tokens are not parsed, and it swallows the whitespace after it; Qwen's "</s>" is plain text),
// random Unicode strings, and text with codepoints new in Unicode 15.0/15.1 on the byte-level BPE
// vocabularies (a Unicode 14 category table split them differently). scripts/tokenizer_diff.py regenerates
// the file (it needs an existing llama-tokenize binary).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/unicode.h"
#include "tests/common/testdata.h"

namespace {

using Ids = std::vector<engine::TokenId>;

constexpr const char* kCasesFile = "tests/data/tokenizer/llama_cpp_cases.jsonl";

struct Case {
  std::string vocab;
  std::string text;
  bool add_special = false;
  bool parse_special = false;
  Ids ids;
};

// The cases file, looked for above the working directory (CTest runs in <build>/tests) and
// beside this source file.
std::filesystem::path cases_path() {
  auto dir = std::filesystem::current_path();
  for (int up = 0; up < 5; ++up, dir = dir.parent_path())
    if (std::filesystem::exists(dir / kCasesFile)) return dir / kCasesFile;
  const auto beside = std::filesystem::path(__FILE__).parent_path() / "../.." / kCasesFile;
  if (std::filesystem::exists(beside)) return beside;
  return {};
}

std::vector<Case> read_cases() {
  const auto path = cases_path();
  INFO("looking for " << kCasesFile << " above " << std::filesystem::current_path());
  REQUIRE_FALSE(path.empty());
  std::vector<Case> cases;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto record = nlohmann::json::parse(line);
    cases.push_back({record.at("vocab"), record.at("text"), record.at("add_special"),
                     record.at("parse_special"), record.at("ids").get<Ids>()});
  }
  return cases;
}

// True for a non-empty text of only the spaces the cases use (Unicode White_Space, U+200B,
// U+FEFF, U+180E and U+001C..U+001F).
bool whitespace_only(const std::string& text) {
  const auto is_space = [](uint32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           c == 0x180E || (c >= 0x2000 && c <= 0x200B) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000 || c == 0xFEFF;
  };
  const auto cpts = engine::unicode::decode_utf8(text);
  return !cpts.empty() && std::all_of(cpts.begin(), cpts.end(), is_space);
}

}  // namespace

TEST_CASE("Tokenizer matches llama.cpp on whitespace, special-token and Unicode cases", "[engine]") {
  const auto cases = read_cases();
  std::map<std::string, std::unique_ptr<engine::Tokenizer>> tokenizers;
  std::map<std::string, size_t> num_cases;
  size_t num_phi3_whitespace_bos = 0;
  size_t num_phi3_end_of_sequence = 0;
  size_t num_unicode15 = 0;
  for (const Case& c : cases) {
    auto& tokenizer = tokenizers[c.vocab];
    if (!tokenizer) {
      ARENA_REQUIRE_TESTDATA(path, "tokenizers/" + c.vocab + ".gguf");
      auto opened = engine::Tokenizer::open(path.string());
      if (!opened) FAIL(opened.error().message);
      tokenizer = std::move(*opened);
    }
    INFO(c.vocab << " add_special=" << c.add_special << " parse_special=" << c.parse_special << " text "
                 << nlohmann::json(c.text).dump());
    CHECK(tokenizer->encode(c.text, c.add_special, c.parse_special) == c.ids);
    ++num_cases[c.vocab];
    const auto cpts = engine::unicode::decode_utf8(c.text);
    num_unicode15 +=
        std::any_of(cpts.begin(), cpts.end(), [](uint32_t cpt) { return cpt >= 0x11F00 && cpt <= 0x11F59; });
    if (c.vocab == "ggml-vocab-phi-3") {
      num_phi3_whitespace_bos += c.add_special && whitespace_only(c.text);
      num_phi3_end_of_sequence += !c.parse_special && c.text.find("</s>") != std::string::npos;
    }
  }
  // Every vocabulary and both classes of issue 11 are covered.
  for (const char* vocab :
       {"ggml-vocab-phi-3", "ggml-vocab-llama-spm", "ggml-vocab-gpt-2", "vocab-llama3", "vocab-qwen3"})
    CHECK(num_cases[vocab] >= 100);
  CHECK(num_phi3_whitespace_bos >= 200);
  CHECK(num_phi3_end_of_sequence >= 20);
  CHECK(num_unicode15 >= 40);  // Kawi
}

TEST_CASE("Phi-3's </s> is a user-defined token, Qwen's is text (as llama.cpp)", "[engine]") {
  ARENA_REQUIRE_TESTDATA(phi3_path, "tokenizers/ggml-vocab-phi-3.gguf");
  ARENA_REQUIRE_TESTDATA(qwen3_path, "tokenizers/vocab-qwen3.gguf");
  const auto phi3 = engine::Tokenizer::open(phi3_path.string());
  const auto qwen3 = engine::Tokenizer::open(qwen3_path.string());
  REQUIRE(phi3.has_value());
  REQUIRE(qwen3.has_value());
  // Split out with or without parse_special; the whitespace after it is swallowed, and the
  // following text gets the SentencePiece space prefix.
  for (const bool parse_special : {false, true}) {
    CHECK((*phi3)->encode("</s>   Hello", false, parse_special) == Ids{2, 15043});
    CHECK((*phi3)->encode("Hi </s>\n\n", true, parse_special) == Ids{1, 6324, 29871, 2});
  }
  CHECK_FALSE((*phi3)->is_control(2));
  CHECK_FALSE((*phi3)->is_end_of_generation(2));
  CHECK((*phi3)->token_to_piece(2) == "</s>");
  // Qwen's "</s>" is a normal token: BPE text even with special tokens parsed.
  CHECK((*qwen3)->encode("</s>", false, true) == Ids{522, 82, 29});
  CHECK_FALSE((*qwen3)->is_end_of_generation(128247));
}
