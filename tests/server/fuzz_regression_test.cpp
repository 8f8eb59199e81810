// Regression tests for what the fuzz targets (fuzz/) found in the board server and `arena serve`.
// Each input under tests/data/fuzz/ named below is the fuzz target's input (a selector byte, then
// the bytes); the test replays it when the folder is found and also checks the case written here.
//   http-invalid-utf8-path.bin (http_ws_fuzzer): GET of a path that is not UTF-8 answered 500: the
//     404 message quoting the path threw while written as JSON; now the bytes are replaced.
//   openai-content-part-type-number.bin, openai-include-usage-number.bin (openai_json_fuzzer): a
//     content part {"type": 1} or stream_options.include_usage 3 threw out of OpenAiApi::parse (500);
//     now 400 naming the field.
//   openai-stop-empty.bin: "stop": "" was accepted as an empty stop string (an array with one was
//     refused); now 400. Also refused now: top_k above 2^31 - 1 and a priority outside 32 bits,
//     which were wrapped (top_k 2^32 + 1 became 1, greedy) instead of refused.
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "arena/server/beast_request.h"
#include "arena/server/hub.h"
#include "arena/server/openai_api.h"
#include "arena/server/router.h"
#include "engine/api.h"
#include "tests/common/testdata.h"

using nlohmann::json;

using arena::test::fuzz_input;

TEST_CASE("a request path that is not UTF-8 gets a JSON 404 and not a 500", "[server]") {
  namespace http = boost::beast::http;
  const std::string bytes =
      fuzz_input("http-invalid-utf8-path.bin", "GET /api/metric\xf3/history?since=1e9 HTTP/1.0\r\n\r\n");
  http::request_parser<http::string_body> parser;
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(bytes), ec);
  REQUIRE_FALSE(ec);
  REQUIRE(parser.is_done());
  auto req = parser.release();
  const auto request = arena::server::to_http_request(req);
  CHECK(request.path == "/api/metric\xf3/history");
  CHECK(request.query == "since=1e9");
  arena::server::Hub hub([](std::function<void()> f) { f(); });
  arena::server::Router router(hub, arena::server::StaticFiles(""), {}, nullptr);
  const auto r = router.route(request).response;
  CHECK(r.status == 404);
  CHECK(json::accept(r.body));
  CHECK(json::accept(arena::server::json_error(400, "bad \xff\xfe").body));
  CHECK(json::accept(arena::server::openai_error(404, "no such route: /v1/\xc3").body));
}

TEST_CASE("OpenAI request fields of the wrong shape are 400s naming the field", "[server]") {
  ARENA_REQUIRE_TESTDATA(path, "models/qwen2-bpe-tied-q4_k_m.gguf");
  auto model = engine::LoadedModel::open(path.string(), engine::ModelOptions{1, "chatml"});
  REQUIRE(model);
  engine::EngineConfig config;
  config.cache.kv_cache_bytes = 4 << 20;
  auto engine = (*model)->create_engine(config);
  REQUIRE(engine);
  arena::server::OpenAiApi api({"test-model", 16, 1}, **model, **engine);
  const auto refused = [&](const std::string& body, bool chat, const std::string& param) {
    INFO(body);
    std::optional<std::expected<arena::server::OpenAiApi::Parsed, arena::server::HttpResponse>> r;
    REQUIRE_NOTHROW(r = api.parse(json::parse(body), chat));
    REQUIRE_FALSE(*r);
    CHECK((*r).error().status == 400);
    CHECK(json::parse((*r).error().body)["error"]["param"] == param);
  };
  refused(fuzz_input("openai-content-part-type-number.bin",
                     R"({"messages":[{"role":"user","content":[{"type":1,"text":"a"}]}]})"),
          true, "messages");
  refused(fuzz_input("openai-include-usage-number.bin",
                     R"({"messages":[{"role":"user","content":"a"}],"stream_options":{"include_usage":3}})"),
          true, "stream_options");
  refused(fuzz_input("openai-stop-empty.bin", R"({"prompt":"a b","stop":""})"), false, "stop");
  refused(R"({"prompt":"a b","top_k":4294967297})", false, "top_k");
  refused(R"({"prompt":"a b","priority":1099511627776})", false, "priority");
  const auto ok = api.parse(
      json::parse(
          R"({"prompt":"a b","top_k":2147483647,"priority":-5,"stream_options":{"include_usage":true},)"
          R"("stream":true,"stop":"x"})"),
      false);
  REQUIRE(ok);
  CHECK(ok->request.sampling.top_k == 2147483647);
  CHECK(ok->request.priority == -5);
  CHECK(ok->include_usage);
}
