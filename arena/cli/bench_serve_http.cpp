// HttpServeRun on Boost.Beast: each tick runs one io_context on the calling thread with one
// coroutine per agent (connect, POST /v1/completions with stream: true, read the SSE events as
// they come); every socket operation has the request's deadline (--request-timeout), so a tick
// always ends. The probe at create() reads /v1/models (model id, owner, max_model_len) and, for
// llama.cpp's server, /props (each slot's n_ctx).
#include "arena/cli/bench_serve_http.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>  // before Boost.Asio 1.74's awaitable.hpp, which uses std::exchange
//
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "agents/backend/http_client.h"
#include "agents/backend/openai_answer.h"

namespace arena::cli {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// One request's outcome, filled in by its coroutine.
struct Reply {
  int status = 0;
  std::string error;  // empty when the exchange itself worked
  std::string body;   // a non-streamed (error) body
  double ttft = -1;   // seconds to the first content chunk; -1 = none came
  bool done = false;  // saw [DONE] (or a whole JSON answer)
  std::string text, finish_reason;
  std::vector<engine::TokenId> ids;
  bool have_ids = false;
  int64_t prompt_tokens = -1, completion_tokens = -1, cached_tokens = -1, llama_prompt_n = -1;
};

int64_t int_or(const json& j, const char* key, int64_t fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>() : fallback;
}

// Reads an array of token ids into `out`; false when `j` is not one.
bool read_ids(const json& j, std::vector<engine::TokenId>& out) {
  if (!j.is_array()) return false;
  for (const json& t : j)
    if (t.is_number_integer()) out.push_back(t.get<engine::TokenId>());
  return true;
}

// One completion object (a streamed chunk or a whole answer) folded into `r`.
void take_completion(const json& j, Reply& r, double seconds) {
  if (!j.is_object()) return;
  if (j.contains("error")) {
    r.error = agents::backend::openai_error_detail(j.dump());
    return;
  }
  const size_t ids_before = r.ids.size(), text_before = r.text.size();
  if (j.contains("choices") && j["choices"].is_array() && !j["choices"].empty()) {
    const json& c = j["choices"][0];
    if (c.contains("text") && c["text"].is_string()) r.text += c["text"].get<std::string>();
    if (c.contains("delta") && c["delta"].is_object() && c["delta"].contains("content") &&
        c["delta"]["content"].is_string())
      r.text += c["delta"]["content"].get<std::string>();
    if (c.contains("token_ids")) r.have_ids = read_ids(c["token_ids"], r.ids) || r.have_ids;
    if (c.contains("finish_reason") && c["finish_reason"].is_string()) r.finish_reason = c["finish_reason"];
  }
  // llama.cpp's own /completion: content, tokens (return_tokens), stop, stop_type.
  if (j.contains("content") && j["content"].is_string()) r.text += j["content"].get<std::string>();
  if (j.contains("tokens")) r.have_ids = read_ids(j["tokens"], r.ids) || r.have_ids;
  if (j.contains("stop") && j["stop"].is_boolean() && j["stop"].get<bool>()) {
    r.done = true;
    const std::string type = j.value("stop_type", json("")).is_string() ? j.value("stop_type", "") : "";
    r.finish_reason = type == "limit" ? "length" : type;
    r.completion_tokens = int_or(j, "tokens_predicted", r.completion_tokens);
    r.prompt_tokens = int_or(j, "tokens_evaluated", r.prompt_tokens);
  }
  if (r.ttft < 0 && (r.ids.size() > ids_before || r.text.size() > text_before)) r.ttft = seconds;
  if (j.contains("usage") && j["usage"].is_object()) {
    const json& u = j["usage"];
    r.prompt_tokens = int_or(u, "prompt_tokens", r.prompt_tokens);
    r.completion_tokens = int_or(u, "completion_tokens", r.completion_tokens);
    if (u.contains("prompt_tokens_details"))
      r.cached_tokens = int_or(u["prompt_tokens_details"], "cached_tokens", r.cached_tokens);
  }
  // llama.cpp's server reports the prompt tokens it evaluated (the rest came from its cache).
  if (j.contains("timings")) r.llama_prompt_n = int_or(j["timings"], "prompt_n", r.llama_prompt_n);
}

// Folds the complete SSE events in body[*scanned, ...) into `r`.
void take_events(const std::string& body, size_t& scanned, Reply& r, double seconds) {
  for (;;) {
    const size_t end = body.find("\n\n", scanned);
    if (end == std::string::npos) return;
    std::istringstream event(body.substr(scanned, end - scanned));
    scanned = end + 2;
    for (std::string line; std::getline(event, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.starts_with("error:")) {  // llama.cpp's server: an "error" event
        r.error = agents::backend::openai_error_detail(line.substr(6));
        continue;
      }
      if (!line.starts_with("data:")) continue;
      std::string data = line.substr(5);
      if (!data.empty() && data.front() == ' ') data.erase(0, 1);
      if (data == "[DONE]") {
        r.done = true;
        continue;
      }
      const json j = json::parse(data, nullptr, false);
      if (j.is_discarded()) {
        r.error = "an SSE event is not JSON: " + data.substr(0, 120);
        continue;
      }
      take_completion(j, r, seconds);
    }
  }
}

std::string describe(const beast::error_code& ec, std::string_view what) {
  if (ec == beast::error::timeout) return fmt::format("timed out {}", what);
  return fmt::format("{}: {}", what, ec.message());
}

// One HTTP exchange: connects, sends, and reads the answer (SSE events as they arrive).
asio::awaitable<void> http_exchange(const tcp::resolver::results_type& endpoints, std::string host,
                                    http::verb verb, std::string target, std::string body,
                                    Clock::time_point deadline, Reply& r) {
  const auto start = Clock::now();
  auto since = [start] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  beast::error_code ec;
  stream.expires_at(deadline);
  co_await stream.async_connect(endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    r.error = describe(ec, "connecting");
    co_return;
  }
  http::request<http::string_body> req{verb, target, 11};
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "arena-bench-serve");
  if (verb == http::verb::post) {
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "text/event-stream");
    req.body() = std::move(body);
  }
  req.prepare_payload();
  stream.expires_at(deadline);
  co_await http::async_write(stream, req, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    r.error = describe(ec, "sending the request");
    co_return;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  stream.expires_at(deadline);
  co_await http::async_read_header(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    r.error = describe(ec, "reading the answer's header");
    co_return;
  }
  r.status = static_cast<int>(parser.get().result_int());
  const bool sse = parser.get()[http::field::content_type].starts_with("text/event-stream");
  size_t scanned = 0;
  while (!parser.is_done()) {
    stream.expires_at(deadline);
    co_await http::async_read_some(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (ec == http::error::end_of_stream) break;
    if (ec) {
      r.error = describe(ec, "reading the answer");
      break;
    }
    if (sse) take_events(parser.get().body(), scanned, r, since());
  }
  if (sse) {
    take_events(parser.get().body() + "\n\n", scanned, r, since());
  } else {
    r.body = parser.get().body();
    if (r.status == 200 && verb == http::verb::post && r.error.empty()) {
      // A server that ignored stream: true; its TTFT is the whole answer's time.
      const json j = json::parse(r.body, nullptr, false);
      if (j.is_discarded()) r.error = "the answer is not JSON: " + r.body.substr(0, 120);
      take_completion(j, r, since());
      r.done = r.error.empty();
    }
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

// Runs `http_exchange` alone (for the probes), within the deadline.
Reply exchange_once(const tcp::resolver::results_type& endpoints, const std::string& host, http::verb verb,
                    const std::string& target, std::chrono::milliseconds timeout) {
  asio::io_context io;
  Reply r;
  asio::co_spawn(io, http_exchange(endpoints, host, verb, target, "", Clock::now() + timeout, r),
                 asio::detached);
  io.run();
  return r;
}

}  // namespace

struct HttpServeRun::State {
  State(const engine::Tokenizer& t, int32_t vocab, const engine::ServeWorkload& w)
      : tokenizer(t), conversations(t, vocab, w), workload(w) {}

  EndpointInfo info;
  std::string host_header, completions_path;
  bool llama_native = false;  // llama.cpp's /completion instead of /v1/completions
  tcp::resolver::results_type endpoints;
  std::chrono::milliseconds timeout{300000};
  const engine::Tokenizer& tokenizer;
  engine::ServeConversations conversations;
  engine::ServeWorkload workload;
  engine::ServeRunStats totals;
  std::vector<double> ttft;
  int64_t hit_prompt = 0, hit_cached = 0;  // over the answers that said what was cached
  int64_t answers_as_ids = 0, answers_as_text = 0;
  std::map<std::string, int64_t> failures;

  void fail(const std::string& message) {
    ++totals.failed;
    ++failures[message];
  }
};

std::vector<std::string> split_endpoints(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream list(item);
    for (std::string url; std::getline(list, url, ',');)
      if (!url.empty()) out.push_back(url);
  }
  return out;
}

std::optional<std::string> endpoint_url_error(const std::string& url) {
  if (url.starts_with("https://"))
    return fmt::format("--endpoint {}: https is not supported; use a plain http:// address", url);
  if (auto t = agents::backend::parse_http_url(url); !t)
    return fmt::format("--endpoint {}: not an http://HOST[:PORT] address", url);
  return std::nullopt;
}

std::expected<std::unique_ptr<HttpServeRun>, std::string> HttpServeRun::create(
    const std::string& url, const engine::Tokenizer& tokenizer, int32_t vocab,
    const engine::ServeWorkload& workload, std::chrono::milliseconds timeout) {
  auto target = agents::backend::parse_http_url(url);
  if (!target) return std::unexpected(target.error());  // checked by endpoint_url_error already
  auto state = std::make_unique<State>(tokenizer, vocab, workload);
  state->info.url = url;
  state->timeout = timeout;
  std::string base = target->base_path;  // the server's root: a trailing /v1 is dropped
  if (base.ends_with("/v1")) base.resize(base.size() - 3);
  state->completions_path = base + "/v1/completions";
  state->host_header = fmt::format("{}:{}", target->host, target->port);

  // Resolve (a numeric address needs no lookup; a name's lookup gets the timeout too).
  {
    asio::io_context io;
    tcp::resolver resolver(io);
    beast::error_code ec;
    bool resolved = false;
    resolver.async_resolve(target->host, std::to_string(target->port),
                           [&](const beast::error_code& e, tcp::resolver::results_type results) {
                             ec = e;
                             state->endpoints = std::move(results);
                             resolved = true;
                           });
    io.run_for(timeout);
    if (!resolved) return std::unexpected(fmt::format("{}: looking up '{}' timed out", url, target->host));
    if (ec)
      return std::unexpected(fmt::format("{}: cannot resolve '{}': {}", url, target->host, ec.message()));
  }

  // The probes get at most 30 s: a server that takes longer to list its models is not ready.
  const auto probe_timeout = std::min(timeout, std::chrono::milliseconds(30000));
  const Reply models = exchange_once(state->endpoints, state->host_header, http::verb::get,
                                     base + "/v1/models", probe_timeout);
  if (!models.error.empty())
    return std::unexpected(fmt::format("{} does not answer (GET {}/v1/models: {}); is the server running?",
                                       url, base, models.error));
  if (models.status != 200)
    return std::unexpected(fmt::format("{}: GET {}/v1/models answered HTTP {}: {}", url, base, models.status,
                                       agents::backend::openai_error_detail(models.body)));
  const json list = json::parse(models.body, nullptr, false);
  if (list.is_discarded() || !list.is_object() || !list.contains("data") || !list["data"].is_array() ||
      list["data"].empty() || !list["data"][0].is_object() || !list["data"][0].contains("id") ||
      !list["data"][0]["id"].is_string())
    return std::unexpected(
        fmt::format("{}: GET {}/v1/models did not list a model ({{\"data\": [{{\"id\": ...}}]}}); is this an "
                    "OpenAI-compatible server?",
                    url, base));
  const json& m = list["data"][0];
  state->info.model_id = m["id"];
  state->info.owned_by = m.value("owned_by", json("")).is_string() ? m.value("owned_by", "") : "";
  if (int64_t n = int_or(m, "max_model_len", 0); n > 0) {
    state->info.context = n;
    state->info.context_source = "/v1/models max_model_len";
  }
  // llama.cpp's server: /props gives each slot's context (-c divided by -np).
  const Reply props =
      exchange_once(state->endpoints, state->host_header, http::verb::get, base + "/props", probe_timeout);
  if (props.error.empty() && props.status == 200) {
    const json p = json::parse(props.body, nullptr, false);
    if (!p.is_discarded() && p.is_object() && p.contains("default_generation_settings"))
      if (int64_t n = int_or(p["default_generation_settings"], "n_ctx", 0); n > 0) {
        state->info.context = n;
        state->info.context_source = "/props n_ctx (llama-server: -c / -np)";
      }
  }
  // llama.cpp's server takes token-id prompts only on its own /completion (its /v1/completions
  // wants text), which also returns each chunk's token ids.
  state->llama_native = state->info.owned_by == "llamacpp";
  if (state->llama_native) state->completions_path = base + "/completion";
  state->info.route = state->completions_path;
  const int64_t need = engine::serve_workload_context_tokens(workload);
  if (state->info.context > 0 && need > state->info.context)
    return std::unexpected(fmt::format(
        "{}: every agent needs {} tokens of context (system {} + {} ticks x ({} new + {} generated)); "
        "the server's is {} ({}): give the server more context per request, or fewer tokens or ticks",
        url, need, workload.system_tokens, workload.ticks, workload.prompt_tokens, workload.gen_tokens,
        state->info.context, state->info.context_source));
  return std::unique_ptr<HttpServeRun>(new HttpServeRun(std::move(state)));
}

HttpServeRun::HttpServeRun(std::unique_ptr<State> state) : state_(std::move(state)) {}
HttpServeRun::~HttpServeRun() = default;

const EndpointInfo& HttpServeRun::info() const {
  return state_->info;
}

double HttpServeRun::run_tick() {
  State& s = *state_;
  const int32_t g = s.workload.gen_tokens;
  const auto start = Clock::now();
  const auto& prompts = s.conversations.next_tick();
  std::vector<Reply> replies(prompts.size());
  std::vector<bool> sent(prompts.size(), false);
  asio::io_context io;
  for (size_t a = 0; a < prompts.size(); ++a) {
    s.totals.prompt_tokens += static_cast<int64_t>(prompts[a].size());
    const auto need = static_cast<int64_t>(prompts[a].size()) + g;
    if (s.info.context > 0 && need > s.info.context) {
      s.fail(fmt::format("a prompt of {} tokens and {} generated exceed the server's context {} ({})",
                         prompts[a].size(), g, s.info.context, s.info.context_source));
      continue;
    }
    const json body = s.llama_native ? json{{"prompt", prompts[a]}, {"n_predict", g}, {"temperature", 0},
                                            {"ignore_eos", true},   {"stream", true}, {"cache_prompt", true},
                                            {"return_tokens", true}}
                                     : json{{"model", s.info.model_id},
                                            {"prompt", prompts[a]},
                                            {"max_tokens", g},
                                            {"temperature", 0},
                                            {"ignore_eos", true},
                                            {"stream", true},
                                            {"stream_options", {{"include_usage", true}}},
                                            {"return_token_ids", true},
                                            {"return_tokens", true}};
    asio::co_spawn(io,
                   http_exchange(s.endpoints, s.host_header, http::verb::post, s.completions_path,
                                 body.dump(), Clock::now() + s.timeout, replies[a]),
                   asio::detached);
    sent[a] = true;
  }
  io.run();  // every operation has its deadline: this ends
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  s.totals.seconds += seconds;
  s.totals.num_requests += static_cast<int64_t>(prompts.size());

  for (size_t a = 0; a < replies.size(); ++a) {
    if (!sent[a]) continue;
    Reply& r = replies[a];
    // The answer as token ids when the server gave them all, else its text re-tokenized.
    std::vector<engine::TokenId> answer;
    if (r.have_ids && (r.completion_tokens < 0 || std::cmp_equal(r.ids.size(), r.completion_tokens))) {
      answer = r.ids;
      ++s.answers_as_ids;
    } else if (!r.text.empty()) {
      answer = s.tokenizer.encode(r.text, false, false);
      ++s.answers_as_text;
    }
    s.conversations.append_answer(a, answer);
    const int64_t generated = r.completion_tokens >= 0 ? r.completion_tokens
                              : r.have_ids             ? static_cast<int64_t>(r.ids.size())
                                                       : static_cast<int64_t>(answer.size());
    if (!r.error.empty() && r.status == 0) {
      s.fail(r.error);
      continue;
    }
    if (r.status != 200) {
      s.fail(fmt::format("HTTP {}: {}", r.status, agents::backend::openai_error_detail(r.body)));
      continue;
    }
    s.totals.generated_tokens += generated;
    if (!r.error.empty()) {
      s.fail(r.error);
      continue;
    }
    if (!r.done) {
      s.fail("the stream ended before data: [DONE]");
      continue;
    }
    if (r.finish_reason != "length" || generated != g) {
      s.fail(fmt::format("finished with '{}' after {} tokens, not 'length' after {}", r.finish_reason,
                         generated, g));
      continue;
    }
    if (r.ttft >= 0) s.ttft.push_back(r.ttft);
    const int64_t prompt = r.prompt_tokens >= 0 ? r.prompt_tokens : static_cast<int64_t>(prompts[a].size());
    if (r.cached_tokens >= 0) {
      s.hit_prompt += prompt;
      s.hit_cached += r.cached_tokens;
    } else if (r.llama_prompt_n >= 0 && r.prompt_tokens >= 0) {
      s.hit_prompt += prompt;
      s.hit_cached += std::max<int64_t>(0, prompt - r.llama_prompt_n);
    }
  }
  return seconds;
}

engine::ServeRunStats HttpServeRun::stats() const {
  const State& s = *state_;
  engine::ServeRunStats stats = s.totals;
  const double seconds = std::max(stats.seconds, 1e-9);
  stats.requests_per_second = static_cast<double>(stats.num_requests) / seconds;
  stats.prompt_tokens_per_second = static_cast<double>(stats.prompt_tokens) / seconds;
  stats.generated_tokens_per_second = static_cast<double>(stats.generated_tokens) / seconds;
  stats.ttft_p50 = engine::serve_quantile(s.ttft, 0.5);
  stats.ttft_p99 = engine::serve_quantile(s.ttft, 0.99);
  stats.engine_side = false;
  stats.prefix_hit_known = s.hit_prompt > 0;
  stats.prefix_hit_rate =
      s.hit_prompt > 0 ? static_cast<double>(s.hit_cached) / static_cast<double>(s.hit_prompt) : 0;
  return stats;
}

std::string HttpServeRun::answer_source() const {
  const State& s = *state_;
  if (s.answers_as_ids > 0 && s.answers_as_text == 0) return "the server's token ids";
  if (s.answers_as_ids == 0 && s.answers_as_text > 0) return "the answer text re-tokenized (no token ids)";
  if (s.answers_as_ids == 0) return "nothing (no request was answered)";
  return fmt::format("{} as the server's token ids, {} as text re-tokenized", s.answers_as_ids,
                     s.answers_as_text);
}

const std::map<std::string, int64_t>& HttpServeRun::failures() const {
  return state_->failures;
}

}  // namespace arena::cli
