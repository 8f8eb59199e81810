// `arena serve`'s OpenAI-compatible API on a real test model through the board server: models,
// completions and chat completions streamed and not, usage with cached tokens, constrained
// choice, errors naming the field, 429 with Retry-After under a full queue; and /metrics read
// by Prometheus's own text parser (python3-prometheus-client).
#include "arena/server/openai_api.h"

#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "arena/server/board_server.h"
#include "engine/api.h"
#include "tests/common/testdata.h"
#include "tests/server/http_client.h"

using arena::test::http_get;
using arena::test::http_post;
using nlohmann::json;

namespace {

struct Served {
  std::unique_ptr<engine::LoadedModel> model;
  std::unique_ptr<engine::Engine> engine;
  std::unique_ptr<arena::server::BoardServer> server;
  uint16_t port() const { return server->port(); }
};

std::unique_ptr<Served> serve(const std::filesystem::path& path, int32_t max_queue = 64,
                              int32_t max_seqs = 8) {
  auto s = std::make_unique<Served>();
  auto model = engine::LoadedModel::open(path.string(), engine::ModelOptions{2, "chatml"});
  REQUIRE(model.has_value());
  s->model = std::move(*model);
  engine::EngineConfig config;
  config.cache.kv_cache_bytes = 8 << 20;
  config.scheduler.max_queue = max_queue;
  config.scheduler.max_num_seqs = max_seqs;
  auto engine = s->model->create_engine(config);
  REQUIRE(engine.has_value());
  s->engine = std::move(*engine);
  arena::server::ServerOptions options;
  options.api = std::make_shared<arena::server::OpenAiApi>(arena::server::OpenAiOptions{"test-model", 16, 1},
                                                           *s->model, *s->engine);
  arena::config::WebConfig web;
  web.port = 0;
  auto server = arena::server::BoardServer::start(web, "", {{"test-model", s->engine.get()}}, options);
  REQUIRE(server.has_value());
  s->server = std::move(*server);
  return s;
}

// The JSON objects of an SSE body, and whether it ended with [DONE].
std::vector<json> sse_events(const std::string& body, bool& done) {
  std::vector<json> out;
  done = false;
  size_t pos = 0;
  while ((pos = body.find("data: ", pos)) != std::string::npos) {
    const size_t end = body.find("\n\n", pos);
    const std::string data = body.substr(pos + 6, end - pos - 6);
    pos = end;
    if (data == "[DONE]") {
      done = true;
      continue;
    }
    out.push_back(json::parse(data));
  }
  return out;
}

// Writes a POST /v1/completions of `body` on a connected socket, without reading the answer.
void post_completion(arena::test::net::ip::tcp::socket& socket, const std::string& body) {
  const std::string request = fmt::format(
      "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
      "{}\r\n\r\n{}",
      body.size(), body);
  arena::test::net::write(socket, arena::test::net::buffer(request));
}

// Whether `holds` became true within about `seconds` (polled every 10 ms).
template <typename Pred>
bool within(double seconds, Pred holds) {
  for (int i = 0; i < static_cast<int>(seconds * 100); ++i) {
    if (holds()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return holds();
}

const std::string kPrompt =
    "You are playing chess as white. The position is the standard start position. Answer with one move in "
    "UCI "
    "notation and nothing else. Your move:";

}  // namespace

TEST_CASE("OpenAI API: completions and chat, streamed and not, constrained choice", "[server]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto s = serve(path);

  auto models = http_get(s->port(), "/v1/models");
  REQUIRE(models.status == 200);
  CHECK(json::parse(models.body)["data"][0]["id"] == "test-model");

  const json request = {{"model", "test-model"}, {"prompt", kPrompt}, {"max_tokens", 8},
                        {"temperature", 0},      {"seed", 3},         {"ignore_eos", true}};
  auto first = http_post(s->port(), "/v1/completions", request.dump());
  REQUIRE(first.status == 200);
  const json a = json::parse(first.body);
  CHECK(a["object"] == "text_completion");
  CHECK(a["choices"][0]["finish_reason"] == "length");
  CHECK(a["usage"]["completion_tokens"] == 8);
  CHECK(a["usage"]["prompt_tokens"].get<int>() > 16);
  const std::string text = a["choices"][0]["text"];

  // The same prompt again: its full blocks come from the prefix cache.
  auto second = http_post(s->port(), "/v1/completions", request.dump());
  REQUIRE(second.status == 200);
  const json b = json::parse(second.body);
  CHECK(b["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>() >= 16);
  CHECK(b["choices"][0]["text"] == text);

  // Streamed: the chunks add up to the same text; usage comes last when asked for.
  json streamed = request;
  streamed["stream"] = true;
  streamed["stream_options"] = {{"include_usage", true}};
  auto st = http_post(s->port(), "/v1/completions", streamed.dump());
  REQUIRE(st.status == 200);
  CHECK(st.raw[arena::test::http::field::content_type] == "text/event-stream");
  bool done = false;
  const auto events = sse_events(st.body, done);
  CHECK(done);
  REQUIRE(events.size() >= 2);
  std::string joined;
  for (const json& e : events)
    if (!e["choices"].empty()) joined += e["choices"][0]["text"].get<std::string>();
  CHECK(joined == text);
  CHECK(events.back()["usage"]["completion_tokens"] == 8);
  CHECK(events[events.size() - 2]["choices"][0]["finish_reason"] == "length");

  // Chat, streamed and not.
  const json chat = {
      {"messages",
       {{{"role", "system"}, {"content", "You play chess."}}, {{"role", "user"}, {"content", "Your move?"}}}},
      {"max_tokens", 6},
      {"temperature", 0},
      {"ignore_eos", true}};
  auto c = http_post(s->port(), "/v1/chat/completions", chat.dump());
  REQUIRE(c.status == 200);
  const json cj = json::parse(c.body);
  CHECK(cj["object"] == "chat.completion");
  CHECK(cj["choices"][0]["message"]["role"] == "assistant");
  CHECK(cj["usage"]["completion_tokens"] == 6);
  json chat_stream = chat;
  chat_stream["stream"] = true;
  auto cs = http_post(s->port(), "/v1/chat/completions", chat_stream.dump());
  REQUIRE(cs.status == 200);
  const auto chat_events = sse_events(cs.body, done);
  CHECK(done);
  REQUIRE(!chat_events.empty());
  CHECK(chat_events[0]["choices"][0]["delta"]["role"] == "assistant");
  std::string chat_joined;
  for (const json& e : chat_events) chat_joined += e["choices"][0]["delta"].value("content", "");
  CHECK(chat_joined == cj["choices"][0]["message"]["content"].get<std::string>());

  // Constrained decoding: the answer is exactly one of the choices, whatever the random weights.
  const std::set<std::string> choices = {"e2e4", "d2d4", "g1f3", "c2c4"};
  for (int seed = 0; seed < 4; ++seed) {
    const json constrained = {{"prompt", kPrompt},
                              {"max_tokens", 12},
                              {"temperature", 1.0},
                              {"seed", seed},
                              {"structured_outputs", {{"choice", choices}}}};
    auto r = http_post(s->port(), "/v1/completions", constrained.dump());
    REQUIRE(r.status == 200);
    CHECK(choices.count(json::parse(r.body)["choices"][0]["text"].get<std::string>()) == 1);
  }
}

TEST_CASE("OpenAI API: errors in OpenAI's shape, naming the field", "[server]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto s = serve(path);
  auto param_of = [&](const std::string& route, const json& body) {
    auto r = http_post(s->port(), route, body.dump());
    INFO(r.body);
    CHECK(r.status == 400);
    const json e = json::parse(r.body, nullptr, false);
    REQUIRE(e.contains("error"));
    CHECK(e["error"]["type"] == "invalid_request_error");
    return e["error"]["param"].is_null() ? std::string() : e["error"]["param"].get<std::string>();
  };
  CHECK(param_of("/v1/completions", {{"prompt", "hi"}, {"temperature", "hot"}}) == "temperature");
  CHECK(param_of("/v1/completions", {{"prompt", "hi"}, {"temperature", -1}}) == "temperature");
  CHECK(param_of("/v1/completions", {{"prompt", "hi"}, {"max_tokens", 0}}) == "max_tokens");
  CHECK(param_of("/v1/completions", {{"prompt", 7}}) == "prompt");
  CHECK(param_of("/v1/completions", {{"max_tokens", 3}}) == "prompt");
  CHECK(param_of("/v1/chat/completions", {{"messages", "hi"}}) == "messages");
  CHECK(param_of("/v1/completions", {{"prompt", "hi"}, {"stop", 3}}) == "stop");
  CHECK(
      param_of("/v1/completions", {{"prompt", "hi"}, {"structured_outputs", {{"choice", json::array()}}}}) ==
      "structured_outputs.choice");
  CHECK(param_of("/v1/completions", {{"prompt", "hi"}, {"n", 2}}) == "n");
  auto bad_json = http_post(s->port(), "/v1/completions", "{nope");
  CHECK(bad_json.status == 400);
  CHECK(json::parse(bad_json.body)["error"]["message"].get<std::string>().find("JSON") != std::string::npos);
  auto unknown = http_post(s->port(), "/v1/completions", json{{"model", "gpt-9"}, {"prompt", "hi"}}.dump());
  CHECK(unknown.status == 404);
  CHECK(json::parse(unknown.body)["error"]["param"] == "model");
  CHECK(http_get(s->port(), "/v1/completions").status == 405);
}

TEST_CASE("OpenAI API: 429 with Retry-After when the engine's queue is full", "[server]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto s = serve(path, /*max_queue=*/1, /*max_seqs=*/1);
  // Fill the engine: long generations (most of the model's 2048-token context each) until it
  // refuses one, so its one seat and its one queue place are provably taken for seconds.
  std::vector<engine::RequestHandle> busy;
  bool full = false;
  for (int i = 0; i < 100 && !full; ++i) {
    engine::GenerateRequest r;
    r.prompt = kPrompt;
    r.sampling.max_tokens = 1900;
    r.sampling.ignore_eos = true;
    auto h = s->engine->submit(std::move(r));
    if (h)
      busy.push_back(*h);
    else  // one refused before two are in means the first had not reached its seat yet: go on
      full = busy.size() >= 2;  // the one seat and the one queue place both taken
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(full);
  int refused = 0;
  std::string retry_after;
  for (int i = 0; i < 4; ++i) {
    auto r = http_post(s->port(), "/v1/completions", json{{"prompt", "hello"}, {"max_tokens", 2}}.dump());
    if (r.status == 429) {
      ++refused;
      retry_after = std::string(r.raw[arena::test::http::field::retry_after]);
      CHECK(json::parse(r.body)["error"]["type"] == "rate_limit_error");
    }
  }
  for (auto& h : busy) h.cancel();
  CHECK(refused >= 1);
  CHECK(retry_after == "1");
}

TEST_CASE("/metrics is valid Prometheus text with vLLM-style names", "[server]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  if (std::system("/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null") != 0) {
    WARN("SKIPPED: python3-prometheus-client is not installed (apt-get install python3-prometheus-client)");
    return;
  }
  auto s = serve(path);
  REQUIRE(
      http_post(s->port(), "/v1/completions", json{{"prompt", kPrompt}, {"max_tokens", 4}}.dump()).status ==
      200);
  auto metrics = http_get(s->port(), "/metrics");
  REQUIRE(metrics.status == 200);
  CHECK(metrics.raw[arena::test::http::field::content_type].starts_with("text/plain; version=0.0.4"));

  char dir_template[] = "/tmp/arena-metrics-XXXXXX";
  const std::filesystem::path dir = mkdtemp(dir_template);
  std::ofstream(dir / "metrics.txt") << metrics.body;
  std::ofstream(dir / "parse.py") << R"PY(
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = {}
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    for sample in family.samples:
        out.setdefault(sample.name, []).append({"labels": sample.labels, "value": sample.value, "type": family.type})
json.dump(out, open(sys.argv[2], "w"))
)PY";
  const std::string command = fmt::format("/usr/bin/python3 {} {} {}", (dir / "parse.py").string(),
                                          (dir / "metrics.txt").string(), (dir / "parsed.json").string());
  REQUIRE(std::system(command.c_str()) == 0);
  const json parsed = json::parse(std::ifstream(dir / "parsed.json"));
  std::filesystem::remove_all(dir);

  auto value = [&](const std::string& name) -> double {
    INFO(name);
    REQUIRE(parsed.contains(name));
    CHECK(parsed[name][0]["labels"]["model"] == "test-model");
    return parsed[name][0]["value"].get<double>();
  };
  for (const char* name :
       {"arena:num_requests_running", "arena:num_requests_waiting", "arena:kv_cache_usage_perc",
        "arena:prefix_cache_queries_total", "arena:prefix_cache_hits_total", "arena:num_preemptions_total",
        "arena:deadline_misses_total", "arena:kv_window_blocks_used", "arena:kv_window_blocks_total"})
    value(name);
  // The test model has no sliding-window layers, so they share the one pool.
  CHECK(value("arena:kv_window_blocks_total") == 0);
  CHECK(value("arena:prompt_tokens_total") > 16);
  CHECK(value("arena:generation_tokens_total") >= 4);
  for (const char* h : {"arena:time_to_first_token_seconds", "arena:inter_token_latency_seconds",
                        "arena:e2e_request_latency_seconds", "arena:request_queue_time_seconds",
                        "arena:iteration_tokens_total", "arena:iteration_sequences"}) {
    CHECK(value(std::string(h) + "_count") >= 1);
    REQUIRE(parsed.contains(std::string(h) + "_bucket"));
    CHECK(parsed[std::string(h) + "_bucket"].back()["labels"]["le"] == "+Inf");
  }
  // vLLM's bucket layout for tokens per step; every step computed at least one token.
  std::vector<double> bounds;
  for (const auto& b : parsed["arena:iteration_tokens_total_bucket"]) {
    const std::string le = b["labels"]["le"];
    if (le != "+Inf") bounds.push_back(std::stod(le));
  }
  CHECK(bounds == std::vector<double>{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384});
  CHECK(parsed["arena:iteration_tokens_total_sum"][0]["value"].get<double>() >=
        value("arena:iteration_tokens_total_count"));
  CHECK(parsed.contains("arena:tournament_games_total"));
}

TEST_CASE("OpenAI API: a streaming client that goes away cancels its request", "[server]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto s = serve(path);
  namespace net = arena::test::net;
  net::io_context ioc;
  net::ip::tcp::socket socket(ioc);
  socket.connect({net::ip::make_address("127.0.0.1"), s->port()});
  post_completion(
      socket, json{{"prompt", kPrompt}, {"max_tokens", 2000}, {"ignore_eos", true}, {"stream", true}}.dump());
  // Read until the first data chunk arrived (at most 10 s): the request is running in the engine.
  std::string got;
  std::array<char, 4096> buf{};
  std::function<void(boost::system::error_code, size_t)> on_read = [&](boost::system::error_code ec,
                                                                       size_t n) {
    got.append(buf.data(), n);
    if (!ec && got.find("data: {") == std::string::npos) socket.async_read_some(net::buffer(buf), on_read);
  };
  socket.async_read_some(net::buffer(buf), on_read);
  ioc.run_for(std::chrono::seconds(10));
  REQUIRE(got.find("data: {") != std::string::npos);
  CHECK(got.starts_with("HTTP/1.1 200"));
  socket.close();
  CHECK(within(3, [&] { return s->engine->metrics().num_requests_cancelled >= 1; }));
  CHECK(s->engine->metrics().num_requests_finished == 0);
}

TEST_CASE("OpenAI API: a server that stops with a completion in flight cancels it", "[server]") {
  // The session waiting for the engine's answer holds itself; the stopping server must let it go
  // (LeakSanitizer found one left in that cycle) and tell the engine nobody waits any more.
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto s = serve(path);
  namespace net = arena::test::net;
  net::io_context ioc;
  net::ip::tcp::socket socket(ioc);
  socket.connect({net::ip::make_address("127.0.0.1"), s->port()});
  post_completion(socket, json{{"prompt", kPrompt}, {"max_tokens", 2000}, {"ignore_eos", true}}.dump());
  REQUIRE(within(10, [&] { return s->engine->metrics().num_requests_running == 1; }));
  s->server.reset();
  CHECK(within(3, [&] { return s->engine->metrics().num_requests_cancelled == 1; }));
  CHECK(s->engine->metrics().num_requests_finished == 0);
}
