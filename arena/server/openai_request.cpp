// OpenAiApi::parse: a request body into the engine request, every bad field named in an
// OpenAI-shaped 400 (sampling ranges are engine::validate's).
#include <fmt/format.h>

#include <climits>

#include "arena/server/openai_api.h"

namespace arena::server {

using nlohmann::json;

namespace {

// A refusal of the request, or nullopt when the part read was fine.
using Refusal = std::optional<HttpResponse>;

HttpResponse bad(std::string_view param, const std::string& message) {
  return openai_error(400, message, "invalid_request_error", param);
}

// Whether `body[key]` is given (present and not null).
bool given(const json& body, const char* key) {
  return body.contains(key) && !body[key].is_null();
}

// The chat messages: {role, content} with content a string or an array of text parts.
Refusal read_messages(const json& body, std::vector<engine::ChatMessage>& out) {
  if (!body.contains("messages") || !body["messages"].is_array() || body["messages"].empty())
    return bad("messages", "'messages' must be a non-empty array of {role, content}");
  for (const json& m : body["messages"]) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return bad("messages", "every message needs a string 'role'");
    std::string content;
    const json c = m.value("content", json());
    if (c.is_string()) {
      content = c;
    } else if (c.is_array()) {
      for (const json& part : c) {
        if (!part.is_object() || !part.contains("type") || part["type"] != "text" || !part.contains("text") ||
            !part["text"].is_string())
          return bad("messages", "message content parts must be {\"type\": \"text\", \"text\": ...}");
        content += part["text"].get<std::string>();
      }
    } else if (!c.is_null()) {
      return bad("messages", "message 'content' must be a string or an array of text parts");
    }
    out.push_back({m["role"].get<std::string>(), std::move(content)});
  }
  return std::nullopt;
}

// A completion's prompt: a string, a one-string array or an array of token ids.
Refusal read_prompt(const json& body, const engine::LoadedModel& model, std::vector<engine::TokenId>& out) {
  if (!body.contains("prompt")) return bad("prompt", "'prompt' is required");
  json prompt = body["prompt"];
  if (prompt.is_array() && prompt.size() == 1 && prompt[0].is_string()) prompt = prompt[0];
  if (prompt.is_string()) {
    out = model.tokenize_prompt(prompt.get<std::string>());
    return std::nullopt;
  }
  if (!prompt.is_array() || prompt.empty() || !prompt[0].is_number_integer())
    return bad(
        "prompt",
        "'prompt' must be a string, a one-string array or an array of token ids (one prompt per request)");
  const int32_t vocab = model.shape().vocab_size;
  for (const json& t : prompt) {
    if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= vocab)
      return bad("prompt", fmt::format("token ids must be integers in [0, {})", vocab));
    out.push_back(t.get<int32_t>());
  }
  return std::nullopt;
}

// A JSON number into `out` (float); its range is engine::validate's.
Refusal read_number(const json& body, const char* key, float& out) {
  if (!given(body, key)) return std::nullopt;
  if (!body[key].is_number()) return bad(key, fmt::format("'{}' must be a number", key));
  out = static_cast<float>(body[key].get<double>());
  return std::nullopt;
}

// max_tokens (or max_completion_tokens): the default when absent, never past the context.
Refusal read_max_tokens(const json& body, int32_t num_prompt, int32_t context, int32_t& max_tokens) {
  bool max_given = false;
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (!given(body, key)) continue;
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
  return std::nullopt;
}

// temperature, top_p, min_p, top_k (-1 = all, as vLLM), seed, stop and ignore_eos; the ranges
// are checked once, by engine::validate.
Refusal read_sampling(const json& body, engine::SamplingParams& s) {
  if (auto e = read_number(body, "temperature", s.temperature)) return e;
  if (auto e = read_number(body, "top_p", s.top_p)) return e;
  if (auto e = read_number(body, "min_p", s.min_p)) return e;
  if (given(body, "top_k")) {
    const json& k = body["top_k"];
    if (!k.is_number_integer() || k.get<int64_t>() < INT32_MIN || k.get<int64_t>() > INT32_MAX)
      return bad("top_k", "'top_k' must be an integer (-1 or 0 = all tokens)");
    s.top_k = k.get<int32_t>() == -1 ? 0 : k.get<int32_t>();
  }
  if (given(body, "seed")) {
    if (!body["seed"].is_number_integer()) return bad("seed", "'seed' must be an integer");
    s.seed = static_cast<uint64_t>(body["seed"].get<int64_t>());
  }
  if (given(body, "stop")) {
    const json& stop = body["stop"];
    if (!stop.is_string() && !stop.is_array())
      return bad("stop", "'stop' must be a string or an array of strings");
    for (const json& x : stop.is_string() ? json::array({stop}) : stop) {
      if (!x.is_string() || x.get<std::string>().empty())
        return bad("stop", "'stop' strings must be non-empty");
      s.stop.push_back(x);
    }
  }
  if (body.contains("ignore_eos")) {
    if (!body["ignore_eos"].is_boolean()) return bad("ignore_eos", "'ignore_eos' must be a boolean");
    s.ignore_eos = body["ignore_eos"];
  }
  if (auto e = engine::validate(s)) return bad(e->field, e->message);
  return std::nullopt;
}

// n (1 only), logprobs (refused) and priority.
Refusal read_options(const json& body, engine::GenerateRequest& req) {
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
  return std::nullopt;
}

// Constrained decoding, as vLLM: structured_outputs.choice (or the older guided_choice).
Refusal read_choice(const json& body, std::vector<std::string>& out) {
  json choice;
  const char* param = "structured_outputs";
  if (body.contains("structured_outputs")) {
    const json& so = body["structured_outputs"];
    if (!so.is_object()) return bad("structured_outputs", "'structured_outputs' must be an object");
    for (const auto& [key, value] : so.items())
      if (key != "choice" && !value.is_null())
        return bad("structured_outputs",
                   fmt::format("structured_outputs.{} is not supported (only 'choice')", key));
    choice = so.value("choice", json());
    param = "structured_outputs.choice";
  } else if (body.contains("guided_choice")) {
    choice = body["guided_choice"];
    param = "guided_choice";
  }
  if (choice.is_null()) return std::nullopt;
  if (!choice.is_array() || choice.empty())
    return bad(param, "the choice must be a non-empty array of strings");
  for (const json& c : choice) {
    if (!c.is_string() || c.get<std::string>().empty())
      return bad(param, "every choice must be a non-empty string");
    out.push_back(c);
  }
  return std::nullopt;
}

// stream and stream_options.include_usage.
Refusal read_stream(const json& body, OpenAiApi::Parsed& p) {
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
  return std::nullopt;
}

// The prompt's tokens: the chat messages through the model's template, or the completion prompt.
Refusal read_prompt_tokens(const json& body, bool chat, const engine::LoadedModel& model,
                           std::vector<engine::TokenId>& out) {
  if (!chat) return read_prompt(body, model, out);
  std::vector<engine::ChatMessage> messages;
  if (auto e = read_messages(body, messages)) return e;
  auto text = model.render_chat(messages);
  if (!text)
    return openai_error(500, "this model's chat template cannot be used: " + text.error().message,
                        "server_error");
  out = model.tokenize_prompt(*text);
  return std::nullopt;
}

// Whether the answer's token ids go in each choice's "token_ids" (vLLM's return_token_ids;
// llama.cpp's name return_tokens is read too): `arena bench serve --endpoint` appends them to
// its prompts.
std::expected<bool, HttpResponse> read_return_ids(const json& body) {
  bool return_ids = false;
  for (const char* key : {"return_token_ids", "return_tokens"}) {
    if (!given(body, key)) continue;
    if (!body[key].is_boolean()) return std::unexpected(bad(key, fmt::format("'{}' must be a boolean", key)));
    return_ids = return_ids || body[key].get<bool>();
  }
  return return_ids;
}

}  // namespace

std::expected<OpenAiApi::Parsed, HttpResponse> OpenAiApi::parse(const json& body, bool chat) const {
  if (!body.is_object()) return std::unexpected(bad("", "the request body must be a JSON object"));
  if (body.contains("model")) {
    if (!body["model"].is_string()) return std::unexpected(bad("model", "'model' must be a string"));
    const std::string name = body["model"];
    if (name != options_.model_name)
      return std::unexpected(openai_error(
          404,
          fmt::format("the model '{}' does not exist (this server serves '{}')", name, options_.model_name),
          "not_found_error", "model"));
  }
  Parsed p;
  p.chat = chat;
  engine::GenerateRequest& req = p.request;
  if (auto e = read_prompt_tokens(body, chat, model_, req.prompt_tokens))
    return std::unexpected(std::move(*e));
  const char* prompt_param = chat ? "messages" : "prompt";
  if (req.prompt_tokens.empty()) return std::unexpected(bad(prompt_param, "the prompt encodes to no tokens"));
  const int32_t context = model_.shape().context_length;
  const auto num_prompt = static_cast<int32_t>(req.prompt_tokens.size());
  if (context > 0 && num_prompt >= context)
    return std::unexpected(
        bad(prompt_param,
            fmt::format("the prompt has {} tokens; this model's context is {}", num_prompt, context)));
  req.sampling.max_tokens = options_.default_max_tokens;
  Refusal e = read_max_tokens(body, num_prompt, context, req.sampling.max_tokens);
  if (!e) e = read_sampling(body, req.sampling);
  if (!e) e = read_options(body, req);
  if (!e) e = read_choice(body, req.allowed_completions);
  if (!e) e = read_stream(body, p);
  if (e) return std::unexpected(std::move(*e));
  auto return_ids = read_return_ids(body);
  if (!return_ids) return std::unexpected(std::move(return_ids.error()));
  p.return_ids = *return_ids;
  return p;
}

}  // namespace arena::server
