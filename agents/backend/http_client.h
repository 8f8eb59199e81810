// A small asynchronous HTTP/1.1 client (plain http) for the OpenAI backend and `arena bench serve`,
// on Boost.Beast: one thread runs its io_context, connections to the one server are kept alive and
// reused (a pool of idle ones), every request has one deadline covering resolve, connect, write and
// read, a streamed answer (server-sent events) is passed on event by event as it arrives, and a call
// can be cancelled. Beast lives in http_client.cpp only (it compiles slowly). Never throws.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agents/backend/sse_reader.h"

namespace agents::backend {

// Where requests go: http://host:port followed by a base path ("/v1").
struct HttpTarget {
  std::string host;
  uint16_t port = 80;
  std::string base_path;  // without a trailing '/'
};

// Reads "http://host[:port][/path]"; an error for https or anything unreadable.
std::expected<HttpTarget, std::string> parse_http_url(std::string_view url);

struct HttpRequest {
  std::string method = "POST";
  std::string path;  // appended to the target's base path ("/chat/completions")
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds timeout{60000};  // resolve + connect + write + read
  size_t body_limit = 8u << 20;              // a longer answer is an Io error
  // When set and the answer is text/event-stream: each line of each event as it arrives, on the
  // client's thread, before the callback (the body still holds the whole stream).
  SseLine on_event;
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::string body;
};

struct HttpError {
  enum class Kind { Connect, Timeout, Io, Cancelled };
  Kind kind = Kind::Io;
  // The step that failed and why: "connecting: Connection refused", "timed out reading the
  // answer's header", "cancelled".
  std::string message;
};

using HttpCallback = std::function<void(std::expected<HttpResponse, HttpError>)>;

// A call in flight; cancel() makes its callback report Cancelled (unless it already finished).
class HttpCall {
 public:
  virtual ~HttpCall() = default;
  virtual void cancel() = 0;
};

class HttpClient {
 public:
  // A client for `target` keeping at most `max_idle` idle connections; starts its thread.
  HttpClient(HttpTarget target, size_t max_idle);
  // Cancels every call (their callbacks run with Cancelled) and stops the thread.
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request`; `done` runs once on the client's thread.
  std::shared_ptr<HttpCall> send(HttpRequest request, HttpCallback done);
  // Sends `request` and waits for its answer (within its timeout); never from the client's thread.
  std::expected<HttpResponse, HttpError> call(HttpRequest request);
  // Runs `fn` on the client's thread after `delay` (retry backoff); dropped at shutdown.
  void post_after(std::chrono::milliseconds delay, std::function<void()> fn);
  // Connections opened so far (tests check keep-alive reuse).
  int64_t num_connections_opened() const;

  const HttpTarget& target() const;

  struct Impl;  // the io thread's state (http_client.cpp)

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace agents::backend
