// OpenAiApi: the routes, the engine request (parsed in openai_request.cpp), and the response
// written from the engine thread's callbacks into an AsyncResponse (whole, or SSE chunks).
#include "arena/server/openai_api.h"

#include <fmt/format.h>

#include <chrono>
#include <climits>
#include <memory>
#include <mutex>

namespace arena::server {

using nlohmann::json;

namespace {

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string finish_reason(engine::FinishReason r) {
  return r == engine::FinishReason::Length ? "length" : "stop";
}

json usage_json(const engine::GenerateResult& r) {
  const int64_t completion = static_cast<int64_t>(r.tokens.size());
  return {{"prompt_tokens", r.num_prompt_tokens},
          {"completion_tokens", completion},
          {"total_tokens", r.num_prompt_tokens + completion},
          {"prompt_tokens_details", {{"cached_tokens", r.num_cached_prompt_tokens}}}};
}

std::string sse(const json& j) {
  return "data: " + j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

}  // namespace

HttpResponse openai_error(int status, std::string_view message, std::string_view type,
                          std::string_view param) {
  json error = {{"message", std::string(message)},
                {"type", std::string(type)},
                {"param", param.empty() ? json() : json(std::string(param))},
                {"code", status}};
  HttpResponse r;
  r.status = status;
  // A message may quote a request path that is not UTF-8: replaced, never thrown on.
  r.body = json{{"error", error}}.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

OpenAiApi::OpenAiApi(OpenAiOptions options, const engine::LoadedModel& model, engine::Engine& engine)
    : options_(std::move(options)), model_(model), engine_(engine) {}

RouteResult OpenAiApi::handle(const HttpRequest& request) {
  if (request.path == "/v1/models") {
    if (request.method != "GET") return {openai_error(405, "use GET on /v1/models"), nullptr};
    json model = {{"id", options_.model_name},
                  {"object", "model"},
                  {"created", unix_seconds()},
                  {"owned_by", "arena"},
                  {"max_model_len", model_.shape().context_length}};
    return {json_response(json{{"object", "list"}, {"data", json::array({model})}}.dump()), nullptr};
  }
  const bool chat = request.path == "/v1/chat/completions";
  if (chat || request.path == "/v1/completions") {
    if (request.method != "POST") return {openai_error(405, "use POST on " + request.path), nullptr};
    return complete(request, chat);
  }
  return {openai_error(
              404, "no such route: " + request.path + " (/v1/models, /v1/completions, /v1/chat/completions)",
              "not_found_error"),
          nullptr};
}

namespace {

// One reply's shape: its id, time and model, chat or completion, streamed or whole.
struct Reply {
  std::string id;
  int64_t created = 0;
  std::string model;
  bool chat = false, stream = false, include_usage = false, return_ids = false;

  json head(const char* chat_object, json choices) const {
    return json{{"id", id},
                {"object", chat ? chat_object : "text_completion"},
                {"created", created},
                {"model", model},
                {"choices", std::move(choices)}};
  }
  // A streamed chunk of `text`, or the last one (empty text, a finish reason).
  json chunk(const std::string& text, json finish) const {
    json choice = {{"index", 0}, {"finish_reason", finish}, {"logprobs", nullptr}};
    if (chat)
      choice["delta"] = text.empty() && !finish.is_null() ? json::object() : json{{"content", text}};
    else
      choice["text"] = text;
    return head("chat.completion.chunk", json::array({choice}));
  }
  // The whole answer (not streamed).
  json whole(const engine::GenerateResult& r) const {
    json choice = {{"index", 0}, {"finish_reason", finish_reason(r.reason)}, {"logprobs", nullptr}};
    if (chat)
      choice["message"] = {{"role", "assistant"}, {"content", r.text}};
    else
      choice["text"] = r.text;
    if (return_ids) choice["token_ids"] = r.tokens;
    json out = head("chat.completion", json::array({choice}));
    out["usage"] = usage_json(r);
    return out;
  }
};

// The engine's final result into `async` (on the engine thread): an error, the stream's last
// chunks, or the whole answer.
void finish_reply(AsyncResponse& async, const Reply& reply, const engine::GenerateResult& r) {
  if (r.reason == engine::FinishReason::Cancelled && async.cancelled()) return;
  if (r.reason == engine::FinishReason::Error || r.reason == engine::FinishReason::Cancelled) {
    const std::string why = r.reason == engine::FinishReason::Error ? r.error : "the request was cancelled";
    if (!reply.stream)
      return async.respond(
          openai_error(500, "the engine could not serve the request: " + why, "server_error"));
    async.push(sse(json::parse(openai_error(500, why, "server_error").body)));
    async.push("data: [DONE]\n\n");
    return async.end();
  }
  if (!reply.stream)
    return async.respond(json_response(reply.whole(r).dump(-1, ' ', false, json::error_handler_t::replace)));
  // The text not yet streamed (a held-back stop-string prefix that turned out not to be one)
  // came in the chunks; the final chunk carries only the finish reason.
  async.push(sse(reply.chunk("", finish_reason(r.reason))));
  if (reply.include_usage) {
    json u = reply.head("chat.completion.chunk", json::array());
    u["usage"] = usage_json(r);
    async.push(sse(u));
  }
  async.push("data: [DONE]\n\n");
  async.end();
}

}  // namespace

RouteResult OpenAiApi::complete(const HttpRequest& request, bool chat) {
  const json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded()) return {openai_error(400, "the request body is not valid JSON"), nullptr};
  auto parsed = parse(body, chat);
  if (!parsed) return {std::move(parsed.error()), nullptr};

  const Reply reply{fmt::format("{}-{}", chat ? "chatcmpl" : "cmpl", next_id_++),
                    unix_seconds(),
                    options_.model_name,
                    chat,
                    parsed->stream,
                    parsed->include_usage,
                    parsed->return_ids};
  auto async = std::make_shared<AsyncResponse>();
  engine::GenerateRequest& req = parsed->request;
  if (reply.stream) {
    req.on_chunk = [async, reply](const engine::StreamChunk& c) {
      if (reply.return_ids && !c.tokens.empty()) {
        json j = reply.chunk(c.text, nullptr);
        j["choices"][0]["token_ids"] = c.tokens;
        async->push(sse(j));
      } else if (!c.text.empty()) {
        async->push(sse(reply.chunk(c.text, nullptr)));
      }
    };
  }
  req.on_finish = [async, reply](const engine::GenerateResult& r) { finish_reply(*async, reply, r); };

  // The stream's head (and a chat's role chunk) go before any engine chunk can: the engine
  // starts calling on_chunk as soon as the request is submitted. A refused submit discards it.
  if (reply.stream) {
    async->begin_stream();
    if (chat) {
      json first = reply.chunk("", nullptr);
      first["choices"][0]["delta"] = {{"role", "assistant"}, {"content", ""}};
      async->push(sse(first));
    }
  }
  auto handle = engine_.submit(std::move(req));
  if (!handle) {
    const std::string& message = handle.error().message;
    // A full queue (or too little memory right now) frees up later: 429, try again.
    if (handle.error().kind == engine::ErrorKind::ResourceExhausted) {
      HttpResponse r = openai_error(429, message, "rate_limit_error");
      r.headers.emplace_back("Retry-After", std::to_string(options_.retry_after_seconds));
      return {r, nullptr};
    }
    return {openai_error(400, message), nullptr};
  }
  engine::Engine* engine = &engine_;
  const engine::RequestId request_id = handle->id();
  async->set_on_cancel([engine, request_id] { engine->cancel(request_id); });
  return {HttpResponse{}, async};
}
}  // namespace arena::server
