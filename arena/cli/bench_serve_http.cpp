// HttpServeRun on the agents' HTTP client (agents/backend/http_client.h): each tick sends every
// agent's POST /v1/completions with stream: true at once (each agent keeps its connection alive)
// and folds each SSE event into its reply as it comes; every request has one deadline
// (--request-timeout) covering resolve, connect, write and read, so a tick always ends. The probe
// at create() reads /v1/models (model id, owner, max_model_len) and, for llama.cpp's server,
// /props (each slot's n_ctx). A fleet (several URLs) has a client per replica and routes each
// agent's request by the fleet's policy (agents/backend/replica_ring.h), agent by agent for
// prefix_affinity, as the agents' fleet client routes a conversation.
#include "arena/cli/bench_serve_http.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "agents/backend/http_client.h"
#include "agents/backend/openai_answer.h"
#include "agents/backend/replica_ring.h"

namespace arena::cli {

using agents::backend::HttpClient;
using agents::backend::HttpRequest;
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

// One line of a streamed answer's event folded into `r`.
void take_event(std::string_view field, std::string_view value, Reply& r, double seconds) {
  if (field == "error") {  // llama.cpp's server: an "error" event
    r.error = agents::backend::openai_error_detail(std::string(value));
    return;
  }
  if (field != "data") return;
  if (value == "[DONE]") {
    r.done = true;
    return;
  }
  const json j = json::parse(value, nullptr, false);
  if (j.is_discarded()) {
    r.error = "an SSE event is not JSON: " + std::string(value.substr(0, 120));
    return;
  }
  take_completion(j, r, seconds);
}

// A request of the benchmark: `body` empty for a GET; answers of up to 64 MiB.
HttpRequest bench_request(std::string path, std::string body, std::chrono::milliseconds timeout) {
  HttpRequest req;
  req.method = body.empty() ? "GET" : "POST";
  req.path = std::move(path);
  req.headers = {{"User-Agent", "arena-bench-serve"}};
  if (!body.empty()) req.headers.emplace_back("Accept", "text/event-stream");
  req.body = std::move(body);
  req.timeout = timeout;
  req.body_limit = 64u << 20;
  return req;
}

// A probe's answer as a Reply (status and body, or the error).
Reply probe(HttpClient& client, const std::string& path, std::chrono::milliseconds timeout) {
  Reply r;
  auto answer = client.call(bench_request(path, "", timeout));
  if (!answer) {
    r.error = answer.error().message;
    return r;
  }
  r.status = answer->status;
  r.body = std::move(answer->body);
  return r;
}

// Folds a whole (not streamed) answer into `r`: a server that ignored stream: true, whose TTFT
// is then the whole answer's time.
void take_whole_answer(const agents::backend::HttpResponse& answer, Reply& r, double seconds) {
  r.status = answer.status;
  if (answer.content_type.starts_with("text/event-stream")) return;  // folded event by event
  r.body = answer.body;
  if (r.status != 200 || !r.error.empty()) return;
  const json j = json::parse(r.body, nullptr, false);
  if (j.is_discarded()) r.error = "the answer is not JSON: " + r.body.substr(0, 120);
  take_completion(j, r, seconds);
  r.done = r.error.empty();
}

}  // namespace

struct HttpServeRun::State {
  State(const engine::Tokenizer& t, int32_t vocab, const engine::ServeWorkload& w)
      : tokenizer(t), conversations(t, vocab, w), workload(w) {}

  EndpointInfo info;
  std::string completions_path;                      // below the server's root (the client's base path)
  bool llama_native = false;                         // llama.cpp's /completion instead of /v1/completions
  std::vector<std::unique_ptr<HttpClient>> clients;  // one per replica (a single server: one)
  std::vector<std::string> urls;
  agents::Routing routing = agents::Routing::PrefixAffinity;
  std::unique_ptr<agents::backend::ReplicaRing> ring;
  std::unique_ptr<std::atomic<int32_t>[]> in_flight;  // per replica, counted down on its client's thread
  std::vector<int64_t> sent;                          // per replica
  uint64_t turn = 0;
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
  // Reads the model (and its context, when the server says) from /v1/models and /props; an error
  // a user can act on when the server does not answer or lists no model.
  std::expected<void, std::string> probe_models(HttpClient& client, const std::string& base);
  // The replica of agent `a`'s next request, by the fleet's policy.
  size_t pick(size_t a) {
    std::vector<agents::backend::ReplicaView> views(clients.size());
    for (size_t i = 0; i < views.size(); ++i) views[i].in_flight = in_flight[i].load();
    const uint64_t key = agents::backend::stable_hash("agent " + std::to_string(a));
    return agents::backend::choose_replica(routing, *ring, views, key, turn++).value_or(0);
  }
  // The request body of a completion of `prompt` (llama.cpp's /completion or /v1/completions).
  std::string completion_body(const std::vector<engine::TokenId>& prompt) const;
  // Folds agent `a`'s reply into the totals and appends its answer to its conversation.
  void take_reply(size_t a, const Reply& r, size_t prompt_size);
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

std::string join_endpoints(const std::vector<std::string>& urls) {
  std::string out;
  for (const auto& url : urls) out += (out.empty() ? "" : ",") + url;
  return out;
}

std::optional<std::string> endpoint_url_error(const std::string& url) {
  if (url.starts_with("https://"))
    return fmt::format("--endpoint {}: https is not supported; use a plain http:// address", url);
  if (auto t = agents::backend::parse_http_url(url); !t)
    return fmt::format("--endpoint {}: not an http://HOST[:PORT] address", url);
  return std::nullopt;
}

std::expected<void, std::string> HttpServeRun::State::probe_models(HttpClient& client,
                                                                   const std::string& base) {
  const std::string& url = info.url;
  // The probes get at most 30 s: a server that takes longer to list its models is not ready.
  const auto probe_timeout = std::min(timeout, std::chrono::milliseconds(30000));
  const Reply models = probe(client, "/v1/models", probe_timeout);
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
  info.model_id = m["id"];
  info.owned_by = m.value("owned_by", json("")).is_string() ? m.value("owned_by", "") : "";
  if (int64_t n = int_or(m, "max_model_len", 0); n > 0) {
    info.context = n;
    info.context_source = "/v1/models max_model_len";
  }
  // llama.cpp's server: /props gives each slot's context (-c divided by -np).
  const Reply props = probe(client, "/props", probe_timeout);
  if (props.error.empty() && props.status == 200) {
    const json p = json::parse(props.body, nullptr, false);
    if (!p.is_discarded() && p.is_object() && p.contains("default_generation_settings"))
      if (int64_t n = int_or(p["default_generation_settings"], "n_ctx", 0); n > 0) {
        info.context = n;
        info.context_source = "/props n_ctx (llama-server: -c / -np)";
      }
  }
  return {};
}

std::expected<std::unique_ptr<HttpServeRun>, std::string> HttpServeRun::create(
    const std::vector<std::string>& urls, agents::Routing routing, const engine::Tokenizer& tokenizer,
    int32_t vocab, const engine::ServeWorkload& workload, std::chrono::milliseconds timeout) {
  auto state = std::make_unique<State>(tokenizer, vocab, workload);
  state->timeout = timeout;
  state->urls = urls;
  state->routing = routing;
  state->ring = std::make_unique<agents::backend::ReplicaRing>(urls, std::vector<int32_t>(urls.size(), 1), 0);
  state->in_flight = std::make_unique<std::atomic<int32_t>[]>(urls.size());
  state->sent.assign(urls.size(), 0);
  std::string base;
  // The replicas in reverse, so that what the first one reports is kept (a fleet serves one model).
  for (size_t i = urls.size(); i-- > 0;) {
    auto target = agents::backend::parse_http_url(urls[i]);
    if (!target) return std::unexpected(target.error());  // checked by endpoint_url_error already
    state->info.url = urls[i];
    base = target->base_path;  // the server's root: a trailing /v1 is dropped
    if (base.ends_with("/v1")) base.resize(base.size() - 3);
    target->base_path = base;
    // Every agent keeps its connection between ticks, as agents of a tournament do.
    auto client =
        std::make_unique<HttpClient>(*target, static_cast<size_t>(std::max(1, workload.num_agents)));
    if (auto probed = state->probe_models(*client, base); !probed) return std::unexpected(probed.error());
    state->clients.insert(state->clients.begin(), std::move(client));
  }
  const std::string url = state->info.url;
  // llama.cpp's server takes token-id prompts only on its own /completion (its /v1/completions
  // wants text), which also returns each chunk's token ids.
  state->llama_native = state->info.owned_by == "llamacpp";
  state->completions_path = state->llama_native ? "/completion" : "/v1/completions";
  state->info.route = base + state->completions_path;
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

std::string HttpServeRun::State::completion_body(const std::vector<engine::TokenId>& prompt) const {
  const int32_t g = workload.gen_tokens;
  const json body = llama_native ? json{{"prompt", prompt},     {"n_predict", g}, {"temperature", 0},
                                        {"ignore_eos", true},   {"stream", true}, {"cache_prompt", true},
                                        {"return_tokens", true}}
                                 : json{{"model", info.model_id},
                                        {"prompt", prompt},
                                        {"max_tokens", g},
                                        {"temperature", 0},
                                        {"ignore_eos", true},
                                        {"stream", true},
                                        {"stream_options", {{"include_usage", true}}},
                                        {"return_token_ids", true},
                                        {"return_tokens", true}};
  return body.dump();
}

void HttpServeRun::State::take_reply(size_t a, const Reply& r, size_t prompt_size) {
  const int32_t g = workload.gen_tokens;
  // The answer as token ids when the server gave them all, else its text re-tokenized.
  std::vector<engine::TokenId> answer;
  if (r.have_ids && (r.completion_tokens < 0 || std::cmp_equal(r.ids.size(), r.completion_tokens))) {
    answer = r.ids;
    ++answers_as_ids;
  } else if (!r.text.empty()) {
    answer = tokenizer.encode(r.text, false, false);
    ++answers_as_text;
  }
  conversations.append_answer(a, answer);
  const int64_t generated = r.completion_tokens >= 0 ? r.completion_tokens
                            : r.have_ids             ? static_cast<int64_t>(r.ids.size())
                                                     : static_cast<int64_t>(answer.size());
  if (!r.error.empty() && r.status == 0) return fail(r.error);
  if (r.status != 200)
    return fail(fmt::format("HTTP {}: {}", r.status, agents::backend::openai_error_detail(r.body)));
  totals.generated_tokens += generated;
  if (!r.error.empty()) return fail(r.error);
  if (!r.done) return fail("the stream ended before data: [DONE]");
  if (r.finish_reason != "length" || generated != g)
    return fail(fmt::format("finished with '{}' after {} tokens, not 'length' after {}", r.finish_reason,
                            generated, g));
  if (r.ttft >= 0) ttft.push_back(r.ttft);
  const int64_t prompt = r.prompt_tokens >= 0 ? r.prompt_tokens : static_cast<int64_t>(prompt_size);
  if (r.cached_tokens >= 0) {
    hit_prompt += prompt;
    hit_cached += r.cached_tokens;
  } else if (r.llama_prompt_n >= 0 && r.prompt_tokens >= 0) {
    hit_prompt += prompt;
    hit_cached += std::max<int64_t>(0, prompt - r.llama_prompt_n);
  }
}

double HttpServeRun::run_tick() {
  State& s = *state_;
  const int32_t g = s.workload.gen_tokens;
  const auto start = Clock::now();
  const auto& prompts = s.conversations.next_tick();
  std::vector<Reply> replies(prompts.size());  // each written on the client's thread until it is done
  std::vector<size_t> to_send;
  for (size_t a = 0; a < prompts.size(); ++a) {
    s.totals.prompt_tokens += static_cast<int64_t>(prompts[a].size());
    const auto need = static_cast<int64_t>(prompts[a].size()) + g;
    if (s.info.context > 0 && need > s.info.context) {
      s.fail(fmt::format("a prompt of {} tokens and {} generated exceed the server's context {} ({})",
                         prompts[a].size(), g, s.info.context, s.info.context_source));
      continue;
    }
    to_send.push_back(a);
  }
  std::latch answered(static_cast<std::ptrdiff_t>(to_send.size()));
  for (size_t a : to_send) {
    const auto sent_at = Clock::now();
    auto since = [sent_at] { return std::chrono::duration<double>(Clock::now() - sent_at).count(); };
    Reply& r = replies[a];
    HttpRequest req = bench_request(s.completions_path, s.completion_body(prompts[a]), s.timeout);
    req.on_event = [&r, since](std::string_view field, std::string_view value) {
      take_event(field, value, r, since());
    };
    const size_t replica = s.pick(a);
    ++s.in_flight[replica];
    ++s.sent[replica];
    s.clients[replica]->send(std::move(req),
                             [&r, &answered, since, &count = s.in_flight[replica]](auto answer) {
                               if (answer)
                                 take_whole_answer(*answer, r, since());
                               else
                                 r.error = answer.error().message;
                               --count;
                               answered.count_down();
                             });
  }
  answered.wait();  // every request has its deadline: this ends
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  s.totals.seconds += seconds;
  s.totals.num_requests += static_cast<int64_t>(prompts.size());
  for (size_t a : to_send) s.take_reply(a, replies[a], prompts[a].size());
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

std::string HttpServeRun::routing_summary() const {
  const State& s = *state_;
  if (s.urls.size() < 2) return "";
  std::string out = fmt::format("routed {}:", agents::to_string(s.routing));
  for (size_t i = 0; i < s.urls.size(); ++i) out += fmt::format(" {} {}", s.urls[i], s.sent[i]);
  return out;
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
