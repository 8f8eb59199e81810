// HttpClient on Boost.Beast: each call is a coroutine on the client's single io thread (so the
// pool, the active set and the timers need no lock); a keep-alive connection that turns out to be
// closed by the server (before any answer came) is replaced once by a fresh one.
#include "agents/backend/http_client.h"

#include <fmt/format.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <future>
#include <set>
#include <thread>

namespace agents::backend {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::expected<HttpTarget, std::string> parse_http_url(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.starts_with("https://"))
    return std::unexpected(
        fmt::format("base_url '{}': https is not supported; use a plain http:// address", url));
  if (!url.starts_with(kScheme))
    return std::unexpected(fmt::format("base_url '{}' must start with http://", url));
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  HttpTarget t;
  if (slash != std::string_view::npos) t.base_path = std::string(rest.substr(slash));
  while (!t.base_path.empty() && t.base_path.back() == '/') t.base_path.pop_back();
  const size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
      return std::unexpected(fmt::format("base_url '{}': bad port '{}'", url, port));
    t.port = static_cast<uint16_t>(value);
    authority = authority.substr(0, colon);
  }
  if (authority.empty()) return std::unexpected(fmt::format("base_url '{}' has no host", url));
  t.host = std::string(authority);
  return t;
}

namespace {

struct CallImpl;

}  // namespace

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  std::thread thread;
  HttpTarget target;
  size_t max_idle = 8;
  std::atomic<int64_t> opened{0};
  // Touched on the io thread only:
  std::vector<std::unique_ptr<beast::tcp_stream>> idle;
  std::set<std::shared_ptr<CallImpl>> active;
  std::set<std::shared_ptr<asio::steady_timer>> timers;
  bool stopping = false;
};

namespace {

struct CallImpl final : HttpCall, std::enable_shared_from_this<CallImpl> {
  std::weak_ptr<HttpClient::Impl> client;
  beast::tcp_stream* stream = nullptr;  // io thread
  bool cancelled = false;               // io thread

  void cancel() override {
    auto c = client.lock();
    if (!c) return;
    asio::post(c->ioc, [self = shared_from_this()] {
      self->cancelled = true;
      if (self->stream) self->stream->cancel();
    });
  }
};

// The error of a failed `step` ("connecting", "reading the answer", ...).
HttpError classify(const beast::error_code& ec, const CallImpl& call, HttpError::Kind otherwise,
                   std::string_view step) {
  if (call.cancelled) return {HttpError::Kind::Cancelled, "cancelled"};
  if (ec == beast::error::timeout) return {HttpError::Kind::Timeout, fmt::format("timed out {}", step)};
  return {otherwise, fmt::format("{}: {}", step, ec.message())};
}

http::request<http::string_body> make_message(const HttpTarget& target, HttpRequest& req) {
  http::request<http::string_body> msg{http::string_to_verb(req.method), target.base_path + req.path, 11};
  msg.set(http::field::host, target.host);
  msg.set(http::field::content_type, "application/json");
  for (const auto& [k, v] : req.headers) msg.set(k, v);
  msg.body() = std::move(req.body);
  msg.keep_alive(true);
  msg.prepare_payload();
  return msg;
}

// Resolves the target and connects `stream`, both by `deadline` (a name lookup that takes longer
// is cancelled and reported as a timeout).
asio::awaitable<beast::error_code> open_connection(HttpClient::Impl& self, beast::tcp_stream& stream,
                                                   std::chrono::steady_clock::time_point deadline) {
  beast::error_code ec;
  tcp::resolver resolver(self.ioc);
  asio::steady_timer guard(self.ioc, deadline);
  guard.async_wait([&resolver](const beast::error_code& e) {
    if (!e) resolver.cancel();  // not run with e == 0 once guard is cancelled below
  });
  auto results = co_await resolver.async_resolve(self.target.host, std::to_string(self.target.port),
                                                 asio::redirect_error(asio::use_awaitable, ec));
  guard.cancel();
  if (ec == asio::error::operation_aborted && std::chrono::steady_clock::now() >= deadline)
    ec = beast::error::timeout;
  if (!ec) co_await stream.async_connect(results, asio::redirect_error(asio::use_awaitable, ec));
  co_return ec;
}

// Reads the answer into `parser`, passing a streamed one's events on as they arrive. Sets `step`
// to what it was doing (for the error) and `answered` once the header came.
asio::awaitable<beast::error_code> read_answer(beast::tcp_stream& stream, const HttpRequest& req,
                                               http::response_parser<http::string_body>& parser,
                                               std::string_view& step, bool& answered) {
  beast::error_code ec;
  beast::flat_buffer buffer;
  parser.body_limit(req.body_limit);
  step = "reading the answer's header";
  co_await http::async_read_header(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return ec;
  answered = true;
  step = "reading the answer";
  const bool events =
      req.on_event && parser.get()[http::field::content_type].starts_with("text/event-stream");
  SseReader reader;
  size_t passed = 0;  // body bytes given to the reader
  while (!parser.is_done()) {
    co_await http::async_read_some(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return ec;
    const std::string& body = parser.get().body();
    if (events) reader.feed(std::string_view(body).substr(passed), req.on_event);
    passed = body.size();
  }
  if (events) reader.finish(req.on_event);
  co_return ec;
}

asio::awaitable<void> run_call(std::shared_ptr<HttpClient::Impl> self, std::shared_ptr<CallImpl> call,
                               HttpRequest req, HttpCallback done) {
  std::expected<HttpResponse, HttpError> out = std::unexpected(HttpError{HttpError::Kind::Io, "not sent"});
  try {
    const auto deadline = std::chrono::steady_clock::now() + req.timeout;
    auto msg = make_message(self->target, req);
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::unique_ptr<beast::tcp_stream> stream;
      const bool reused = !self->idle.empty();
      if (reused) {
        stream = std::move(self->idle.back());
        self->idle.pop_back();
      } else {
        stream = std::make_unique<beast::tcp_stream>(self->ioc);
      }
      call->stream = stream.get();
      if (call->cancelled) {
        out = std::unexpected(HttpError{HttpError::Kind::Cancelled, "cancelled"});
        break;
      }
      stream->expires_at(deadline);
      beast::error_code ec;
      if (!reused) {
        ec = co_await open_connection(*self, *stream, deadline);
        if (ec) {
          out = std::unexpected(classify(ec, *call, HttpError::Kind::Connect, "connecting"));
          break;
        }
        ++self->opened;
      }
      std::string_view step = "sending the request";
      bool answered = false;
      http::response_parser<http::string_body> parser;
      co_await http::async_write(*stream, msg, asio::redirect_error(asio::use_awaitable, ec));
      if (!ec) ec = co_await read_answer(*stream, req, parser, step, answered);
      if (!ec) {
        auto& res = parser.get();
        out = HttpResponse{static_cast<int>(res.result_int()), std::string(res[http::field::content_type]),
                           std::move(res.body())};
        if (res.keep_alive() && !self->stopping && self->idle.size() < self->max_idle) {
          stream->expires_never();
          call->stream = nullptr;
          self->idle.push_back(std::move(stream));
        }
        break;
      }
      // A pooled connection the server had closed: once more on a fresh one (before any answer).
      if (reused && !answered && !call->cancelled && ec != beast::error::timeout) continue;
      out = std::unexpected(classify(ec, *call, HttpError::Kind::Io, step));
      break;
    }
  } catch (const std::exception& e) {
    out = std::unexpected(HttpError{HttpError::Kind::Io, e.what()});
  }
  call->stream = nullptr;
  self->active.erase(call);
  done(std::move(out));
}

}  // namespace

HttpClient::HttpClient(HttpTarget target, size_t max_idle) : impl_(std::make_shared<Impl>()) {
  impl_->target = std::move(target);
  impl_->max_idle = max_idle;
  // The thread shares the state: when the client is destroyed from one of its own callbacks the
  // thread is detached and the state lives until run() returns.
  impl_->thread = std::thread([impl = impl_] { impl->ioc.run(); });
}

HttpClient::~HttpClient() {
  asio::post(impl_->ioc, [impl = impl_] {
    impl->stopping = true;
    for (const auto& call : impl->active) {
      call->cancelled = true;
      if (call->stream) call->stream->cancel();
    }
    for (const auto& t : impl->timers) t->cancel();
    impl->idle.clear();
  });
  impl_->work.reset();
  if (impl_->thread.get_id() == std::this_thread::get_id())
    impl_->thread.detach();  // destroyed from one of its own callbacks: the thread ends by itself
  else
    impl_->thread.join();
}

std::shared_ptr<HttpCall> HttpClient::send(HttpRequest request, HttpCallback done) {
  auto call = std::make_shared<CallImpl>();
  call->client = impl_;
  asio::post(
      impl_->ioc, [impl = impl_, call, request = std::move(request), done = std::move(done)]() mutable {
        if (impl->stopping) {
          done(std::unexpected(HttpError{HttpError::Kind::Cancelled, "the client is shutting down"}));
          return;
        }
        impl->active.insert(call);
        asio::co_spawn(impl->ioc, run_call(impl, call, std::move(request), std::move(done)), asio::detached);
      });
  return call;
}

std::expected<HttpResponse, HttpError> HttpClient::call(HttpRequest request) {
  auto answer = std::make_shared<std::promise<std::expected<HttpResponse, HttpError>>>();
  auto future = answer->get_future();
  send(std::move(request),
       [answer](std::expected<HttpResponse, HttpError> r) { answer->set_value(std::move(r)); });
  return future.get();  // every call ends by its deadline, or as Cancelled when the client stops
}

void HttpClient::post_after(std::chrono::milliseconds delay, std::function<void()> fn) {
  asio::post(impl_->ioc, [impl = impl_, delay, fn = std::move(fn)]() mutable {
    if (impl->stopping) return;
    auto timer = std::make_shared<asio::steady_timer>(impl->ioc, delay);
    impl->timers.insert(timer);
    timer->async_wait([impl, timer, fn = std::move(fn)](const beast::error_code& ec) {
      impl->timers.erase(timer);
      if (!ec && !impl->stopping) fn();
    });
  });
}

int64_t HttpClient::num_connections_opened() const {
  return impl_->opened.load();
}

const HttpTarget& HttpClient::target() const {
  return impl_->target;
}

}  // namespace agents::backend
