// OpenAiApi: request validation (every bad field named), the engine request, and the response
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

std::expected<OpenAiApi::Parsed, HttpResponse> OpenAiApi::parse(const json& body, bool chat) const {
  auto bad = [](std::string_view param, std::string message) {
    return std::unexpected(openai_error(400, message, "invalid_request_error", param));
  };
  if (!body.is_object()) return bad("", "the request body must be a JSON object");
  Parsed p;
  p.chat = chat;
  engine::GenerateRequest& req = p.request;
  if (body.contains("model")) {
    if (!body["model"].is_string()) return bad("model", "'model' must be a string");
    const std::string name = body["model"];
    if (name != options_.model_name)
      return std::unexpected(openai_error(
          404,
          fmt::format("the model '{}' does not exist (this server serves '{}')", name, options_.model_name),
          "not_found_error", "model"));
  }
  // The prompt.
  if (chat) {
    if (!body.contains("messages") || !body["messages"].is_array() || body["messages"].empty())
      return bad("messages", "'messages' must be a non-empty array of {role, content}");
    std::vector<engine::ChatMessage> messages;
    for (const json& m : body["messages"]) {
      if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
        return bad("messages", "every message needs a string 'role'");
      std::string content;
      const json c = m.value("content", json());
      if (c.is_string()) {
        content = c;
      } else if (c.is_array()) {
        for (const json& part : c) {
          if (!part.is_object() || !part.contains("type") || part["type"] != "text" ||
              !part.contains("text") || !part["text"].is_string())
            return bad("messages", "message content parts must be {\"type\": \"text\", \"text\": ...}");
          content += part["text"].get<std::string>();
        }
      } else if (!c.is_null()) {
        return bad("messages", "message 'content' must be a string or an array of text parts");
      }
      messages.push_back({m["role"].get<std::string>(), std::move(content)});
    }
    auto text = model_.render_chat(messages);
    if (!text)
      return std::unexpected(openai_error(
          500, "this model's chat template cannot be used: " + text.error().message, "server_error"));
    req.prompt_tokens = model_.tokenize_prompt(*text);
  } else {
    if (!body.contains("prompt")) return bad("prompt", "'prompt' is required");
    json prompt = body["prompt"];
    if (prompt.is_array() && prompt.size() == 1 && prompt[0].is_string()) prompt = prompt[0];
    if (prompt.is_string()) {
      req.prompt_tokens = model_.tokenize_prompt(prompt.get<std::string>());
    } else if (prompt.is_array() && !prompt.empty() && prompt[0].is_number_integer()) {
      const int32_t vocab = model_.shape().vocab_size;
      for (const json& t : prompt) {
        if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= vocab)
          return bad("prompt", fmt::format("token ids must be integers in [0, {})", vocab));
        req.prompt_tokens.push_back(t.get<int32_t>());
      }
    } else {
      return bad(
          "prompt",
          "'prompt' must be a string, a one-string array or an array of token ids (one prompt per request)");
    }
  }
  if (req.prompt_tokens.empty()) return bad(chat ? "messages" : "prompt", "the prompt encodes to no tokens");
  const int32_t context = model_.shape().context_length;
  const auto num_prompt = static_cast<int32_t>(req.prompt_tokens.size());
  if (context > 0 && num_prompt >= context)
    return bad(chat ? "messages" : "prompt",
               fmt::format("the prompt has {} tokens; this model's context is {}", num_prompt, context));

  // Sampling.
  engine::SamplingParams& s = req.sampling;
  auto number = [&](const char* key, double lo, double hi, auto& out) -> std::optional<HttpResponse> {
    if (!body.contains(key) || body[key].is_null()) return std::nullopt;
    if (!body[key].is_number())
      return openai_error(400, fmt::format("'{}' must be a number", key), "invalid_request_error", key);
    const double v = body[key].get<double>();
    if (v < lo || v > hi)
      return openai_error(400, fmt::format("'{}' must be in [{}, {}], got {}", key, lo, hi, v),
                          "invalid_request_error", key);
    out = static_cast<std::remove_reference_t<decltype(out)>>(v);
    return std::nullopt;
  };
  int32_t max_tokens = options_.default_max_tokens;
  bool max_given = false;
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (!body.contains(key) || body[key].is_null()) continue;
    if (!body[key].is_number_integer() || body[key].get<int64_t>() < 1 ||
        body[key].get<int64_t>() > (1 << 20))
      return bad(key, fmt::format("'{}' must be an integer >= 1", key));
    max_tokens = body[key].get<int32_t>();
    max_given = true;
  }
  if (context > 0) {
    if (max_given && num_prompt + max_tokens > context)
      return bad("max_tokens",
                 fmt::format("the prompt ({} tokens) plus max_tokens ({}) exceed the context ({})",
                             num_prompt, max_tokens, context));
    max_tokens = std::min(max_tokens, context - num_prompt);
  }
  s.max_tokens = max_tokens;
  if (auto e = number("temperature", 0, 2, s.temperature)) return std::unexpected(*e);
  if (auto e = number("top_p", 1e-9, 1, s.top_p)) return std::unexpected(*e);
  if (auto e = number("min_p", 0, 1, s.min_p)) return std::unexpected(*e);
  if (body.contains("top_k") && !body["top_k"].is_null()) {
    if (!body["top_k"].is_number_integer() || body["top_k"].get<int64_t>() < -1 ||
        body["top_k"].get<int64_t>() > INT32_MAX)
      return bad("top_k", "'top_k' must be an integer (-1 or 0 = all tokens)");
    s.top_k = std::max<int32_t>(0, body["top_k"].get<int32_t>());
  }
  if (body.contains("seed") && !body["seed"].is_null()) {
    if (!body["seed"].is_number_integer()) return bad("seed", "'seed' must be an integer");
    s.seed = static_cast<uint64_t>(body["seed"].get<int64_t>());
  }
  if (body.contains("stop") && !body["stop"].is_null()) {
    const json& stop = body["stop"];
    if (stop.is_string()) {
      if (stop.get<std::string>().empty()) return bad("stop", "'stop' strings must be non-empty");
      s.stop.push_back(stop);
    } else if (stop.is_array()) {
      for (const json& x : stop) {
        if (!x.is_string() || x.get<std::string>().empty())
          return bad("stop", "'stop' strings must be non-empty");
        s.stop.push_back(x);
      }
    } else {
      return bad("stop", "'stop' must be a string or an array of strings");
    }
  }
  if (body.contains("ignore_eos")) {
    if (!body["ignore_eos"].is_boolean()) return bad("ignore_eos", "'ignore_eos' must be a boolean");
    s.ignore_eos = body["ignore_eos"];
  }
  if (body.contains("n") && !(body["n"].is_number_integer() && body["n"].get<int64_t>() == 1))
    return bad("n", "only n = 1 is supported");
  if (body.value("logprobs", json()).is_boolean() ? body["logprobs"].get<bool>()
                                                  : body.value("logprobs", json()).is_number())
    return bad("logprobs", "logprobs are not supported");
  if (body.contains("priority")) {
    if (!body["priority"].is_number_integer() || body["priority"].get<int64_t>() < INT32_MIN ||
        body["priority"].get<int64_t>() > INT32_MAX)
      return bad("priority", "'priority' must be a 32-bit integer");
    req.priority = body["priority"];
  }

  // Constrained decoding, as vLLM: structured_outputs.choice (or the older guided_choice).
  json choice;
  const char* choice_param = "structured_outputs";
  if (body.contains("structured_outputs")) {
    const json& so = body["structured_outputs"];
    if (!so.is_object()) return bad("structured_outputs", "'structured_outputs' must be an object");
    for (const auto& [key, value] : so.items())
      if (key != "choice" && !value.is_null())
        return bad("structured_outputs",
                   fmt::format("structured_outputs.{} is not supported (only 'choice')", key));
    choice = so.value("choice", json());
    choice_param = "structured_outputs.choice";
  } else if (body.contains("guided_choice")) {
    choice = body["guided_choice"];
    choice_param = "guided_choice";
  }
  if (!choice.is_null()) {
    if (!choice.is_array() || choice.empty())
      return bad(choice_param, "the choice must be a non-empty array of strings");
    for (const json& c : choice) {
      if (!c.is_string() || c.get<std::string>().empty())
        return bad(choice_param, "every choice must be a non-empty string");
      req.allowed_completions.push_back(c);
    }
  }

  if (body.contains("stream")) {
    if (!body["stream"].is_boolean()) return bad("stream", "'stream' must be a boolean");
    p.stream = body["stream"];
  }
  if (body.contains("stream_options") && body["stream_options"].is_object()) {
    const json usage = body["stream_options"].value("include_usage", json());
    if (!usage.is_null() && !usage.is_boolean())
      return bad("stream_options", "'stream_options.include_usage' must be a boolean");
    p.include_usage = usage.is_boolean() && usage.get<bool>();
  }
  return p;
}

RouteResult OpenAiApi::complete(const HttpRequest& request, bool chat) {
  const json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded()) return {openai_error(400, "the request body is not valid JSON"), nullptr};
  auto parsed = parse(body, chat);
  if (!parsed) return {std::move(parsed.error()), nullptr};
  // The answer's token ids in each choice's "token_ids" (vLLM's return_token_ids; llama.cpp's
  // name return_tokens is read too): `arena bench serve --endpoint` appends them to its prompts.
  bool return_ids = false;
  for (const char* key : {"return_token_ids", "return_tokens"}) {
    if (!body.contains(key) || body[key].is_null()) continue;
    if (!body[key].is_boolean())
      return {openai_error(400, fmt::format("'{}' must be a boolean", key), "invalid_request_error", key),
              nullptr};
    return_ids = return_ids || body[key].get<bool>();
  }

  const std::string id = fmt::format("{}-{}", chat ? "chatcmpl" : "cmpl", next_id_++);
  const int64_t created = unix_seconds();
  const std::string model = options_.model_name;
  const bool stream = parsed->stream, include_usage = parsed->include_usage;
  auto async = std::make_shared<AsyncResponse>();
  engine::GenerateRequest& req = parsed->request;

  auto chunk_json = [id, created, model, chat](const std::string& text, json finish) {
    json choice = {{"index", 0}, {"finish_reason", finish}, {"logprobs", nullptr}};
    if (chat)
      choice["delta"] = text.empty() && !finish.is_null() ? json::object() : json{{"content", text}};
    else
      choice["text"] = text;
    return json{{"id", id},
                {"object", chat ? "chat.completion.chunk" : "text_completion"},
                {"created", created},
                {"model", model},
                {"choices", json::array({choice})}};
  };

  if (stream) {
    req.on_chunk = [async, chunk_json, return_ids](const engine::StreamChunk& c) {
      if (return_ids && !c.tokens.empty()) {
        json j = chunk_json(c.text, nullptr);
        j["choices"][0]["token_ids"] = c.tokens;
        async->push(sse(j));
      } else if (!c.text.empty()) {
        async->push(sse(chunk_json(c.text, nullptr)));
      }
    };
  }
  req.on_finish = [async, stream, include_usage, chat, id, created, model, chunk_json,
                   return_ids](const engine::GenerateResult& r) {
    if (r.reason == engine::FinishReason::Cancelled && async->cancelled()) return;
    if (r.reason == engine::FinishReason::Error || r.reason == engine::FinishReason::Cancelled) {
      const std::string why = r.reason == engine::FinishReason::Error ? r.error : "the request was cancelled";
      if (!stream)
        return async->respond(
            openai_error(500, "the engine could not serve the request: " + why, "server_error"));
      async->push(sse(json::parse(openai_error(500, why, "server_error").body)));
      async->push("data: [DONE]\n\n");
      return async->end();
    }
    if (stream) {
      // The text not yet streamed (a held-back stop-string prefix that turned out not to be one)
      // came in the chunks; the final chunk carries only the finish reason.
      async->push(sse(chunk_json("", finish_reason(r.reason))));
      if (include_usage) {
        json u = {{"id", id},
                  {"object", chat ? "chat.completion.chunk" : "text_completion"},
                  {"created", created},
                  {"model", model},
                  {"choices", json::array()},
                  {"usage", usage_json(r)}};
        async->push(sse(u));
      }
      async->push("data: [DONE]\n\n");
      return async->end();
    }
    json choice = {{"index", 0}, {"finish_reason", finish_reason(r.reason)}, {"logprobs", nullptr}};
    if (chat)
      choice["message"] = {{"role", "assistant"}, {"content", r.text}};
    else
      choice["text"] = r.text;
    if (return_ids) choice["token_ids"] = r.tokens;
    json out = {{"id", id},
                {"object", chat ? "chat.completion" : "text_completion"},
                {"created", created},
                {"model", model},
                {"choices", json::array({choice})},
                {"usage", usage_json(r)}};
    async->respond(json_response(out.dump(-1, ' ', false, json::error_handler_t::replace)));
  };

  // The stream's head (and a chat's role chunk) go before any engine chunk can: the engine
  // starts calling on_chunk as soon as the request is submitted. A refused submit discards it.
  if (stream) {
    async->begin_stream();
    if (chat) {
      json first = chunk_json("", nullptr);
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
