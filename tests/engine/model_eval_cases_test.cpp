// Conformance case files: parsing (kinds, ids, greedy count, `\n` escapes, comments) with
// file:line errors, and the JSON lines written for each kind.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/tools/eval_cases.h"

TEST_CASE("Case files parse into logits and tokenize cases", "[engine]") {
  const auto cases = engine::parse_eval_cases(
      "# a comment\n"
      "logits 1162|16\n"
      "logits 5 6  7 |0\r\n"
      "\n"
      "tokenize   two spaces\\nnew line\\tstays\n"
      "tokenize_nospecial <s>x\n",
      "cases.txt");
  REQUIRE(cases.has_value());
  REQUIRE(cases->size() == 4);
  CHECK((*cases)[0].kind == engine::EvalCase::Kind::Logits);
  CHECK((*cases)[0].line == 2);
  CHECK((*cases)[0].tokens == std::vector<int32_t>{1162});
  CHECK((*cases)[0].num_greedy == 16);
  CHECK((*cases)[1].tokens == std::vector<int32_t>{5, 6, 7});
  CHECK((*cases)[1].num_greedy == 0);
  CHECK((*cases)[2].kind == engine::EvalCase::Kind::Tokenize);
  CHECK((*cases)[2].text == "  two spaces\nnew line\\tstays");
  CHECK((*cases)[2].add_special);
  CHECK((*cases)[3].text == "<s>x");
  CHECK_FALSE((*cases)[3].add_special);
  CHECK((*cases)[3].line == 6);
}

TEST_CASE("Bad case lines name the file, the line and the problem", "[engine]") {
  auto error = [](const std::string& text) {
    const auto r = engine::parse_eval_cases(text, "f.txt");
    REQUIRE_FALSE(r.has_value());
    return r.error().message;
  };
  CHECK(error("logits 1 2 3\n") == "f.txt:1: expected 'logits ID ID ... |N'");
  CHECK(error("tokenize a\nlogits 1 x|2\n") == "f.txt:2: bad token id 'x'");
  CHECK(error("logits -1|2\n") == "f.txt:1: bad token id '-1'");
  CHECK(error("logits 1|two\n") == "f.txt:1: bad greedy count 'two' after '|'");
  CHECK(error("logits |2\n") == "f.txt:1: a logits case needs at least one token id");
  CHECK(error("generate hello\n") ==
        "f.txt:1: unknown case kind 'generate' (expected logits, tokenize or tokenize_nospecial)");
  CHECK(engine::read_eval_cases("/nonexistent/cases.txt").error().message ==
        "/nonexistent/cases.txt: cannot open cases file");
}

TEST_CASE("Results are written as reference-schema JSON lines", "[engine]") {
  const std::vector<int32_t> ids = {1, 379};
  const auto tok = engine::tokenize_json("a \"quote\"\n\\ \x01", true, ids);
  CHECK(tok == R"({"kind":"tokenize","add_special":true,"text":"a \"quote\"\n\\ \u0001","ids":[1,379]})");
  CHECK(nlohmann::json::parse(tok)["text"] == "a \"quote\"\n\\ \x01");

  engine::LogitsResult r;
  r.tokens = {7, 8};
  r.top = {{{3, 1.5f}, {4, -0.25f}}, {{5, 7.20974f}, {1, 2.0f}}};
  r.last_logits = {0.5f, -6.07893f, 1e-7f};
  r.greedy = {5, 5};
  const auto line = engine::logits_json(r);
  CHECK(line == R"({"kind":"logits","tokens":[7,8],"top":[[[3,1.5],[4,-0.25]],[[5,7.20974],[1,2]]],)"
                R"("last_logits":[0.5,-6.07893,1e-07],"greedy":[5,5]})");
  const auto j = nlohmann::json::parse(line);
  CHECK(j["top"][1][0][0] == 5);
}
