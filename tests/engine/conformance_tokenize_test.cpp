// Conformance with llama.cpp's tokenizer on the test models: every tokenize / tokenize_nospecial
// case of reference/cases-*.txt gives llama.cpp's ids, and `arena eval`'s JSON line for it is
// byte for byte the reference line.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tools/eval_cases.h"
#include "tests/common/testdata.h"

TEST_CASE("Tokenize cases match llama.cpp on every test model", "[engine]") {
  ARENA_REQUIRE_TESTDATA(dir, "reference");
  const std::pair<const char*, const char*> models[] = {
      {"llama-spm-gqa-q8_0", "llama-spm-gqa"},
      {"qwen2-bpe-tied-f32", "qwen2-bpe-tied"},
  };
  for (const auto& [name, family] : models) {
    ARENA_REQUIRE_TESTDATA(model_path, fmt::format("models/{}.gguf", name));
    auto file = engine::gguf::GgufFile::open(model_path.string());
    REQUIRE(file.has_value());
    auto tokenizer = engine::Tokenizer::from_gguf(*file);
    REQUIRE(tokenizer.has_value());
    auto cases = engine::read_eval_cases((dir / fmt::format("cases-{}.txt", family)).string());
    REQUIRE(cases.has_value());
    std::ifstream ref_in(dir / fmt::format("{}.jsonl", name));
    std::vector<std::string> reference;
    for (std::string line; std::getline(ref_in, line);) reference.push_back(line);
    REQUIRE(reference.size() == cases->size());

    int num_checked = 0;
    for (size_t i = 0; i < cases->size(); ++i) {
      const auto& c = (*cases)[i];
      if (c.kind != engine::EvalCase::Kind::Tokenize) continue;
      const auto ref = nlohmann::json::parse(reference[i]);
      INFO(name << ", line " << c.line << ": " << c.text);
      REQUIRE(ref["text"].get<std::string>() == c.text);
      REQUIRE(ref["add_special"].get<bool>() == c.add_special);
      const auto ids = (*tokenizer)->encode(c.text, c.add_special, /*parse_special=*/true);
      CHECK(ids == ref["ids"].get<std::vector<int32_t>>());
      CHECK(engine::tokenize_json(c.text, c.add_special, ids) == reference[i]);
      ++num_checked;
    }
    CHECK(num_checked == 12);
  }
}
