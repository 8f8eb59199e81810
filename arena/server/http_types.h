// The board server's HTTP vocabulary without Boost.Beast: a parsed request, a complete response,
// and an AsyncResponse that another thread (the engine's) completes later or streams as
// server-sent events. Route handlers (REST, /metrics, static files, /v1) speak only these, so
// Beast stays in the one translation unit that owns the sockets (board_server.cpp).
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arena::server {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: path and query, percent-encoded
  std::string path;    // target before '?', still percent-encoded
  std::string query;   // after '?' ("" when none)
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  unsigned version = 11;                                     // HTTP/1.1 = 11, HTTP/1.0 = 10

  // The value of header `name` (lower-case), or "" when absent.
  std::string header(std::string_view name) const;
  // The value of query parameter `name` (percent-decoded), or nullopt.
  std::optional<std::string> query_param(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers (Retry-After, ...)
};

// A JSON response {"error": message} with `status`.
HttpResponse json_error(int status, std::string_view message);
// A JSON response with a body already serialised.
HttpResponse json_response(std::string body, int status = 200);

// A response produced later, from any thread: either one whole response (respond) or a stream of
// server-sent events (begin_stream, push..., end). The session that owns the socket installs a
// waker and drains what is ready on its own thread; when the client goes away it calls cancel(),
// which runs the producer's cancel hook once (e.g. cancelling an engine request).
class AsyncResponse {
 public:
  // What a session takes out at once.
  struct Ready {
    std::optional<HttpResponse> whole;  // set once when respond() was called
    std::optional<HttpResponse> head;   // set once when begin_stream() was called (body unused)
    std::vector<std::string> chunks;    // stream data pushed since the last drain
    bool ended = false;                 // end() was called (after the chunks above)
  };

  // Completes with one whole response (ignored after a previous respond/begin_stream).
  void respond(HttpResponse response);
  // Starts a stream: status 200 with `content_type` (text/event-stream) and no length.
  void begin_stream(std::string content_type = "text/event-stream");
  // Appends stream data (after begin_stream).
  void push(std::string data);
  // Ends the stream.
  void end();
  // Whether the client went away (producers may stop early).
  bool cancelled() const;
  // Runs `hook` once when the client goes away (at once if it already has).
  void set_on_cancel(std::function<void()> hook);

  // Session side: called (from the producer's thread) whenever something new is ready. Returns
  // only once no earlier waker runs any more (nor is still held by the producer's thread), so
  // that what a waker holds (the session's executor) can go with the server once the session
  // has cleared it; cancel() waits the same way.
  void set_waker(std::function<void()> waker);
  // Session side: takes what is ready.
  Ready drain();
  // Session side: the client went away.
  void cancel();

 private:
  void wake(std::unique_lock<std::mutex>& lock);
  void wait_no_wake(std::unique_lock<std::mutex>& lock);

  mutable std::mutex mutex_;
  std::condition_variable woken_;  // a wake ended
  int waking_ = 0;                 // wakes running their waker outside the lock
  Ready ready_;
  bool started_ = false;  // respond or begin_stream happened
  bool cancelled_ = false;
  std::function<void()> waker_;
  std::function<void()> on_cancel_;
};

// What a route handler returns: a response now, or an AsyncResponse completed later.
struct RouteResult {
  HttpResponse response;
  std::shared_ptr<AsyncResponse> async;  // when set, `response` is ignored
};

// Percent-decodes `text` ('+' stays '+'); nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view text);

}  // namespace arena::server
