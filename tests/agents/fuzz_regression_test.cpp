// Regression tests for what the fuzz targets (fuzz/) found in the agents layer. Each input under
// tests/data/fuzz/ named below is the fuzz target's input (a selector byte, then the bytes); the
// test replays it when the folder is found and also checks the case written out here.
//   uci-score-int32-min.bin (uci_output_fuzzer): `info score cp -2147483648` was read as INT32_MIN,
//     which the adjudication then negated / took std::abs of (undefined); now refused.
//   openai-usage-huge.bin, openai-usage-negative.bin (openai_json_fuzzer): usage counts of 1e300
//     (converted to int: undefined) or -5 were taken as given; now 0 unless in [0, 2^31 - 1].
#include <catch2/catch.hpp>
#include <climits>
#include <string>

#include "agents/backend/openai_answer.h"
#include "agents/uci/uci_protocol.h"
#include "tests/common/testdata.h"

using arena::test::fuzz_input;

TEST_CASE("a UCI score of -2^31 is refused and -(2^31 - 1) is read", "[agents]") {
  const std::string line =
      fuzz_input("uci-score-int32-min.bin", "info depth 3 score cp -2147483648 pv e2e4\n");
  CHECK_FALSE(agents::uci::parse_info_score(line.substr(0, line.find('\n'))));
  CHECK_FALSE(agents::uci::parse_info_score("info score mate -2147483648"));
  const auto ok = agents::uci::parse_info_score("info score cp -2147483647");
  REQUIRE(ok);
  CHECK(ok->cp == -INT32_MAX);
  CHECK(agents::uci::parse_info_score("info score cp 2147483647")->cp == INT32_MAX);
}

TEST_CASE("OpenAI answers: usage counts out of range read as 0 and the answer kept", "[agents]") {
  using agents::backend::parse_openai_answer;
  for (const auto& [name, fallback] :
       {std::pair{"openai-usage-huge.bin",
                  R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1e300}})"},
        std::pair{"openai-usage-negative.bin",
                  R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-5}})"}}) {
    const auto a = parse_openai_answer(fuzz_input(name, fallback), agents::Endpoint::Chat);
    REQUIRE(a);
    CHECK(a->text == "x");
    CHECK(a->num_prompt_tokens == 0);
  }
  const auto odd = parse_openai_answer(
      R"({"choices":[{"text":"e4","finish_reason":"length"}],"usage":{"prompt_tokens":"12",)"
      R"("completion_tokens":3.0,"prompt_tokens_details":{"cached_tokens":4294967296}}})",
      agents::Endpoint::Completions);
  REQUIRE(odd);
  CHECK(odd->text == "e4");
  CHECK(odd->truncated);
  CHECK(odd->num_prompt_tokens == 0);
  CHECK(odd->num_completion_tokens == 3);
  CHECK(odd->num_cached_tokens == 0);
  const auto good = parse_openai_answer(
      R"({"choices":[{"message":{"content":"Nf3"},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":12,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":8}}})",
      agents::Endpoint::Chat);
  REQUIRE(good);
  CHECK(good->stopped_at_stop_string);
  CHECK((good->num_prompt_tokens == 12 && good->num_completion_tokens == 2 && good->num_cached_tokens == 8));
}

TEST_CASE("OpenAI answers that cannot be read are messages and not exceptions", "[agents]") {
  using agents::backend::parse_openai_answer;
  for (const char* body : {"", "[]", "{\"choices\":[]}", "{\"choices\":[{\"text\":1}]}", "{\"choices\":{}}",
                           "{\"choices\":[{\"message\":null}]}", "\xff"}) {
    const auto a = parse_openai_answer(body, agents::Endpoint::Chat);
    const auto b = parse_openai_answer(body, agents::Endpoint::Completions);
    REQUIRE_FALSE(a);
    REQUIRE_FALSE(b);
    CHECK(a.error().starts_with("unreadable answer ("));
  }
  CHECK(agents::backend::openai_error_detail(R"({"error":{"message":"no such model"}})") == "no such model");
  CHECK(agents::backend::openai_error_detail(R"({"error":"busy"})") == "\"busy\"");
  CHECK(agents::backend::openai_error_detail(std::string(300, 'x')) == std::string(200, 'x'));
  CHECK(agents::backend::openai_error_detail(R"({"object":"error","message":"bad model"})") == "bad model");
}
