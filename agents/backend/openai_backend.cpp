// OpenAiBackend: request bodies (nlohmann::json), a concurrency gate with a FIFO queue, retries
// with doubling backoff on 429 / 503 / connection errors, response and error parsing.
#include "agents/backend/openai_backend.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "agents/backend/http_client.h"
#include "agents/backend/openai_answer.h"

namespace agents::backend {

using nlohmann::json;

namespace {

std::string gbnf_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

std::string gbnf_alternation(const std::vector<std::string>& choices) {
  std::string out = "root ::= ";
  for (size_t i = 0; i < choices.size(); ++i) out += (i ? " | " : "") + gbnf_literal(choices[i]);
  return out;
}

std::string openai_request_body(const OpenAiBackendConfig& config, const CompletionRequest& request) {
  json body;
  body["model"] = config.model;
  if (config.endpoint == Endpoint::Chat) {
    json messages = json::array();
    if (request.chat) {
      for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    } else {
      messages.push_back({{"role", "user"}, {"content", request.prompt}});
    }
    if (!request.assistant_prefix.empty()) {
      // Continue the open assistant turn (reason mode's move after the marker): vLLM's extension.
      messages.push_back({{"role", "assistant"}, {"content", request.assistant_prefix}});
      body["continue_final_message"] = true;
      body["add_generation_prompt"] = false;
    }
    body["messages"] = std::move(messages);
  } else {
    body["prompt"] = request.prompt + request.assistant_prefix;
  }
  const engine::SamplingParams& s = request.sampling;
  body["max_tokens"] = s.max_tokens;
  body["temperature"] = s.temperature;
  if (s.top_p < 1.0f) body["top_p"] = s.top_p;
  if (s.top_k > 0) body["top_k"] = s.top_k;
  if (s.min_p > 0.0f) body["min_p"] = s.min_p;
  if (s.seed) body["seed"] = *s.seed;
  if (!s.stop.empty()) body["stop"] = s.stop;
  if (!request.choices.empty()) {
    switch (config.constraint) {
      case RemoteConstraint::Vllm:
        body["structured_outputs"] = {{"choice", request.choices}};
        body["guided_choice"] = request.choices;  // vLLM before structured_outputs
        break;
      case RemoteConstraint::LlamaServer:
        body["grammar"] = gbnf_alternation(request.choices);
        break;
      case RemoteConstraint::None:
        break;
    }
  }
  // The session as the OpenAI `user` field: vLLM's and SGLang's routers can hash on it.
  if (!request.session.empty()) body["user"] = request.session;
  body["stream"] = false;
  return body.dump();
}

namespace {

class OpenAiBackend;

// One request through its tries.
struct Op final : PendingCompletion, std::enable_shared_from_this<Op> {
  std::weak_ptr<OpenAiBackend> backend;
  CompletionRequest request;
  std::string body;
  std::function<void(CompletionResult)> on_done;
  Clock::time_point submitted, started;
  int32_t attempt = 0;
  std::mutex mutex;  // guards call, cancelled, done
  std::shared_ptr<HttpCall> call;
  bool cancelled = false;
  bool done = false;

  void cancel() override;
};

class OpenAiBackend final : public LlmBackend, public std::enable_shared_from_this<OpenAiBackend> {
 public:
  OpenAiBackend(OpenAiBackendConfig config, HttpTarget target, std::optional<std::string> key)
      : config_(std::move(config)), key_(std::move(key)), target_(std::move(target)) {
    client_ = std::make_unique<HttpClient>(target_, static_cast<size_t>(config_.max_concurrency));
  }

  ~OpenAiBackend() override {
    stopping_ = true;
    client_.reset();  // cancels the calls in flight: their callbacks complete them
    std::vector<std::shared_ptr<Op>> left;
    {
      std::lock_guard lock(mutex_);
      left.assign(live_.begin(), live_.end());
    }
    for (const auto& op : left) complete(op, cancelled_result(*op));
  }

  std::shared_ptr<PendingCompletion> submit(CompletionRequest request,
                                            std::function<void(CompletionResult)> on_done) override {
    auto op = std::make_shared<Op>();
    op->backend = weak_from_this();
    op->body = openai_request_body(config_, request);
    op->request = std::move(request);
    op->on_done = std::move(on_done);
    op->submitted = Clock::now();
    bool start_now = false;
    {
      std::lock_guard lock(mutex_);
      live_.insert(op);
      if (in_flight_ < config_.max_concurrency) {
        ++in_flight_;
        start_now = true;
      } else {
        waiting_.push_back(op);
      }
    }
    if (start_now) start(op);
    return op;
  }

  std::string describe() const override {
    const auto& t = target_;
    return fmt::format("openai http://{}:{}{} model {}", t.host, t.port, t.base_path, config_.model);
  }

  // Cancels `op`: a queued one completes at once, one in flight through its call.
  void cancel(const std::shared_ptr<Op>& op) {
    bool was_waiting = false;
    {
      std::lock_guard lock(mutex_);
      for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
        if (*it == op) {
          waiting_.erase(it);
          was_waiting = true;
          break;
        }
    }
    if (was_waiting) {
      complete(op, cancelled_result(*op), /*held_slot=*/false);
      return;
    }
    std::shared_ptr<HttpCall> call;
    {
      std::lock_guard lock(op->mutex);
      op->cancelled = true;
      call = op->call;
    }
    if (call) call->cancel();
  }

 private:
  CompletionResult failure(const Op& op, FailureKind kind, std::string message,
                           ReplicaFault fault = ReplicaFault::None) const {
    CompletionResult r;
    r.failure = MoveFailure{kind, scrub(std::move(message))};
    r.replica_fault = fault;
    r.prompt_text = prompt_text(op);
    r.total_seconds = seconds_since(op.submitted);
    return r;
  }
  CompletionResult cancelled_result(const Op& op) const {
    return failure(op, FailureKind::Cancelled, "the request was cancelled");
  }

  // The prompt as the result records it: the plain prompt, or the chat messages as JSON.
  std::string prompt_text(const Op& op) const {
    if (config_.endpoint == Endpoint::Completions || !op.request.chat)
      return op.request.prompt + op.request.assistant_prefix;
    json messages = json::array();
    for (const auto& m : op.request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    if (!op.request.assistant_prefix.empty())
      messages.push_back({{"role", "assistant"}, {"content", op.request.assistant_prefix}});
    return messages.dump();
  }

  // Never lets the key out, whatever a server echoes back.
  std::string scrub(std::string text) const {
    if (key_ && !key_->empty())
      for (size_t at; (at = text.find(*key_)) != std::string::npos;) text.replace(at, key_->size(), "***");
    return text;
  }

  void start(const std::shared_ptr<Op>& op) {
    bool cancelled = false;
    {
      std::lock_guard lock(op->mutex);
      cancelled = op->cancelled || stopping_;
    }
    if (cancelled) return complete(op, cancelled_result(*op));
    if (op->attempt == 0) op->started = Clock::now();
    HttpRequest req;
    req.path = config_.endpoint == Endpoint::Chat ? "/chat/completions" : "/completions";
    req.body = op->body;
    req.timeout = config_.timeout;
    if (key_) req.headers.emplace_back("Authorization", "Bearer " + *key_);
    if (!config_.session_header.empty() && !op->request.session.empty())
      req.headers.emplace_back(config_.session_header, op->request.session);
    // Callbacks hold the backend weakly: one destroyed from the client's own thread must not be
    // called after its destructor (which completed every live op itself).
    auto call = client_->send(std::move(req),
                              [weak = weak_from_this(), op](std::expected<HttpResponse, HttpError> r) {
                                if (auto self = weak.lock()) self->on_response(op, std::move(r));
                              });
    bool cancel_now = false;
    {
      std::lock_guard lock(op->mutex);
      op->call = call;
      cancel_now = op->cancelled;
    }
    if (cancel_now) call->cancel();
  }

  // Tries again after the backoff, or fails with `message` (the server being `fault`).
  void retry_or_fail(const std::shared_ptr<Op>& op, std::string message, ReplicaFault fault) {
    if (stopping_) return complete(op, cancelled_result(*op));
    if (op->attempt < config_.max_retries) {
      const auto delay = config_.backoff * (int64_t{1} << std::min(op->attempt, 20));
      ++op->attempt;
      spdlog::warn("{}; retrying in {} ms (retry {} of {})", message, delay.count(), op->attempt,
                   config_.max_retries);
      client_->post_after(delay, [weak = weak_from_this(), op] {
        if (auto self = weak.lock()) self->start(op);
      });
      return;
    }
    complete(op, failure(*op, FailureKind::BackendError,
                         fmt::format("{} (after {} tries)", message, op->attempt + 1), fault));
  }

  void on_response(const std::shared_ptr<Op>& op, std::expected<HttpResponse, HttpError> r) {
    const std::string where = describe();
    if (!r) {
      switch (r.error().kind) {
        case HttpError::Kind::Cancelled:
          return complete(op, cancelled_result(*op));
        case HttpError::Kind::Timeout:
          return complete(op,
                          failure(*op, FailureKind::Timeout,
                                  fmt::format("{}: no answer within {} ms", where, config_.timeout.count()),
                                  ReplicaFault::Down));
        case HttpError::Kind::Connect:
        case HttpError::Kind::Io:
          return retry_or_fail(op, fmt::format("{}: {}", where, r.error().message), ReplicaFault::Down);
      }
    }
    const int status = r->status;
    if (status == 429 || status == 503 || status == 502 || status == 504)
      return retry_or_fail(op, fmt::format("{}: server answered {}", where, status),
                           status == 429 ? ReplicaFault::Busy : ReplicaFault::Down);
    if (status != 200) {
      std::string message =
          fmt::format("{}: server answered {}: {}", where, status, openai_error_detail(r->body));
      if (status == 401 || status == 403)
        message += config_.api_key_env.empty() ? " (no API key is set: name its variable in api_key_env)"
                                               : fmt::format(" (check the key in ${})", config_.api_key_env);
      // Any other 5xx is the server failing, not the request: a fleet takes the replica out.
      CompletionResult refused = failure(*op, FailureKind::BackendError, std::move(message),
                                         status >= 500 ? ReplicaFault::Down : ReplicaFault::None);
      // A conversation that outgrew the server's context restarts afresh (llm_player.cpp).
      refused.context_overflow = openai_context_exceeded(status, r->body);
      return complete(op, std::move(refused));
    }
    auto answer = parse_openai_answer(r->body, config_.endpoint);
    if (!answer)
      return complete(op,
                      failure(*op, FailureKind::BackendError, fmt::format("{}: {}", where, answer.error())));
    CompletionResult out;
    out.prompt_text = prompt_text(*op);
    out.text = std::move(answer->text);
    out.truncated = answer->truncated;
    out.stopped_at_stop_string = answer->stopped_at_stop_string;
    out.num_prompt_tokens = answer->num_prompt_tokens;
    out.num_completion_tokens = answer->num_completion_tokens;
    out.num_cached_tokens = answer->num_cached_tokens;
    out.queue_seconds = std::chrono::duration<double>(op->started - op->submitted).count();
    out.ttft_seconds = seconds_since(op->submitted);  // not streamed: the whole answer arrives at once
    out.total_seconds = out.ttft_seconds;
    complete(op, std::move(out));
  }

  // Hands the result over once, and passes the slot to the next waiting request.
  void complete(const std::shared_ptr<Op>& op, CompletionResult result, bool held_slot = true) {
    {
      std::lock_guard lock(op->mutex);
      if (op->done) return;
      op->done = true;
      op->call.reset();
    }
    std::shared_ptr<Op> next;
    {
      std::lock_guard lock(mutex_);
      live_.erase(op);
      if (held_slot) {
        if (!waiting_.empty() && !stopping_) {
          next = waiting_.front();
          waiting_.pop_front();
        } else {
          --in_flight_;
        }
      }
    }
    // Called once and dropped: the callback may hold whoever holds `op` (a fleet's request).
    auto on_done = std::move(op->on_done);
    on_done(std::move(result));
    if (next) start(next);
  }

  OpenAiBackendConfig config_;
  std::optional<std::string> key_;
  HttpTarget target_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;  // guards in_flight_, waiting_, live_
  int32_t in_flight_ = 0;
  std::deque<std::shared_ptr<Op>> waiting_;
  std::set<std::shared_ptr<Op>> live_;
  std::unique_ptr<HttpClient> client_;  // last: destroyed first, while the rest still exists
};

void Op::cancel() {
  {
    std::lock_guard lock(mutex);
    if (done) return;
  }
  if (auto b = backend.lock()) b->cancel(shared_from_this());
}

}  // namespace

std::expected<std::shared_ptr<LlmBackend>, std::string> make_openai_backend(
    const OpenAiBackendConfig& config, std::optional<std::string> api_key) {
  auto target = parse_http_url(config.base_url);
  if (!target) return std::unexpected(target.error());
  if (config.model.empty())
    return std::unexpected(std::string("openai backend: no model named (set `model:`)"));
  if (config.max_concurrency < 1)
    return std::unexpected(
        fmt::format("openai backend: max_concurrency must be at least 1 (got {})", config.max_concurrency));
  if (config.max_retries < 0)
    return std::unexpected(
        fmt::format("openai backend: max_retries must be 0 or more (got {})", config.max_retries));
  if (config.timeout.count() <= 0)
    return std::unexpected(std::string("openai backend: timeout must be positive"));
  return std::make_shared<OpenAiBackend>(config, std::move(*target), std::move(api_key));
}

}  // namespace agents::backend
