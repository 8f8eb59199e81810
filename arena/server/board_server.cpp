// The board server's sockets: the only translation unit that includes Boost.Beast (it compiles
// slowly). Listener -> http_session (static files, REST, /metrics, /v1 through the Router;
// streamed AsyncResponses) -> websocket_session on /ws (reads client messages into the Hub; one
// write in flight; a bounded send queue). Everything runs on one io thread.
#include "arena/server/board_server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <deque>
#include <future>
#include <optional>
#include <thread>

#include "arena/server/beast_request.h"
#include "arena/server/engine_sampler.h"

namespace arena::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// What every session shares: the hub, the router, the limits and the connection count.
struct ServerState {
  Hub* hub = nullptr;
  Router* router = nullptr;
  ServerLimits limits;
  int32_t connections = 0;  // io thread only
};

// Holds one connection slot for a session's lifetime.
class ConnectionSlot {
 public:
  explicit ConnectionSlot(ServerState& state) : state_(&state) { ++state_->connections; }
  ConnectionSlot(ConnectionSlot&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  ConnectionSlot(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(ConnectionSlot&&) = delete;
  ~ConnectionSlot() {
    if (state_) --state_->connections;
  }

 private:
  ServerState* state_;
};

// --- websocket_session -------------------------------------------------------------------------

class WebsocketSession : public std::enable_shared_from_this<WebsocketSession>, public HubClient {
 public:
  WebsocketSession(tcp::socket&& socket, ServerState& state, ConnectionSlot slot)
      : ws_(std::move(socket)), state_(state), slot_(std::move(slot)) {}

  ~WebsocketSession() override {
    if (joined_) state_.hub->leave(this);
  }

  void run(http::request<http::string_body> request) {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "arena"); }));
    ws_.read_message_max(state_.limits.max_ws_message_bytes);
    ws_.async_accept(request, beast::bind_front_handler(&WebsocketSession::on_accept, shared_from_this()));
  }

  bool deliver(std::shared_ptr<const std::string> message, bool droppable) override {
    if (closing_) return false;
    const ServerLimits& limits = state_.limits;
    if (queue_.size() >= limits.ws_queue_hard || queued_bytes_ + message->size() > limits.ws_queue_bytes) {
      drop("its send queue is full");
      return false;
    }
    if (droppable && queue_.size() >= limits.ws_queue_soft) return false;
    queued_bytes_ += message->size();
    queue_.push_back(std::move(message));
    if (queue_.size() == 1) do_write();
    return true;
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) return;
    joined_ = true;
    state_.hub->join(this);
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, beast::bind_front_handler(&WebsocketSession::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec) {
      // message_too_big: Beast has already sent close code 1009 (message too big).
      if (ec == websocket::error::message_too_big)
        spdlog::debug("web: a WebSocket message over the size limit");
      leave();
      return;
    }
    if (!ws_.got_text()) {
      buffer_.consume(buffer_.size());
      deliver(
          std::make_shared<const std::string>(R"({"type":"error","message":"only text messages are read"})"),
          false);
    } else {
      const std::string text = beast::buffers_to_string(buffer_.data());
      buffer_.consume(buffer_.size());
      state_.hub->handle_message(this, text);
    }
    if (!closing_) do_read();
  }

  void do_write() {
    ws_.text(true);
    ws_.async_write(net::buffer(*queue_.front()),
                    beast::bind_front_handler(&WebsocketSession::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) {
      leave();
      return;
    }
    queued_bytes_ -= queue_.front()->size();
    queue_.pop_front();
    if (!queue_.empty() && !closing_) do_write();
  }

  // The client is gone or dropped: stop receiving events.
  void leave() {
    closing_ = true;
    if (joined_) {
      joined_ = false;
      state_.hub->leave(this);
    }
  }

  // A client too slow to take its messages: close the socket (a close frame would queue behind
  // the backlog); the pending read and write fail and release the session.
  void drop(const char* why) {
    spdlog::info("web: dropping a WebSocket client: {}", why);
    leave();
    queue_.clear();
    queued_bytes_ = 0;
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(ws_).socket().close(ignored);
  }

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
  ServerState& state_;
  ConnectionSlot slot_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_bytes_ = 0;
  bool joined_ = false, closing_ = false;
};

// --- http_session ------------------------------------------------------------------------------

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket&& socket, ServerState& state)
      : stream_(std::move(socket)), state_(state), slot_(state) {}

  ~HttpSession() {
    if (pending_) pending_->cancel();
  }

  void run() { wait_for_request(); }

 private:
  // Keep-alive: wait (idle_timeout) for the first byte of the next request, then read it whole
  // within header_timeout, so an idle client and a slow-loris one are both cut off.
  void wait_for_request() {
    if (buffer_.size() > 0) return read_request();
    stream_.expires_after(state_.limits.idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->close();
                              self->buffer_.commit(n);
                              self->read_request();
                            });
  }

  void read_request() {
    parser_.emplace();
    parser_->body_limit(state_.limits.max_body_bytes);
    parser_->header_limit(static_cast<std::uint32_t>(state_.limits.max_header_bytes));
    stream_.expires_after(state_.limits.header_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&HttpSession::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout) return close();
    if (ec == http::error::body_limit)
      return send_error(
          413, fmt::format("the request body is over the limit of {} bytes", state_.limits.max_body_bytes));
    if (ec == http::error::header_limit)
      return send_error(431, fmt::format("the request header is over the limit of {} bytes",
                                         state_.limits.max_header_bytes));
    if (ec) return send_error(400, "malformed HTTP request: " + ec.message());

    http::request<http::string_body> req = parser_->release();
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    head_only_ = req.method() == http::verb::head;
    if (websocket::is_upgrade(req)) {
      if (req.target() != "/ws") return send_error(404, "WebSocket connections go to /ws");
      stream_.expires_never();
      auto ws = std::make_shared<WebsocketSession>(stream_.release_socket(), state_, std::move(slot_));
      ws->run(std::move(req));
      return;
    }
    const HttpRequest request = to_http_request(req);
    RouteResult result = state_.router->route(request);
    if (!result.async) return send(std::move(result.response));
    // No socket operation is pending while the response is produced: the session holds itself
    // until finish_async() (on this thread, so it is never released on the engine's thread).
    pending_ = std::move(result.async);
    hold_self_ = shared_from_this();
    std::weak_ptr<HttpSession> weak = hold_self_;
    auto executor = stream_.get_executor();
    pending_->set_waker([weak, executor] {
      net::post(executor, [weak] {
        if (auto self = weak.lock()) self->on_async_ready();
      });
    });
  }

  // Something of the pending AsyncResponse is ready: a whole response, or stream parts.
  void on_async_ready() {
    if (!pending_) return;
    AsyncResponse::Ready ready = pending_->drain();
    if (ready.whole) {
      finish_async();
      return send(std::move(*ready.whole));
    }
    if (ready.head) {
      stream_head_.emplace(http::status::ok, version_);
      stream_head_->set(http::field::server, "arena");
      stream_head_->set(http::field::content_type, ready.head->content_type);
      stream_head_->set(http::field::cache_control, "no-cache");
      stream_head_->keep_alive(false);
      stream_head_->chunked(true);
      chunks_.emplace_back();  // the header goes first (empty marker)
      header_pending_ = true;
    }
    for (auto& c : ready.chunks)
      if (!c.empty()) chunks_.push_back(std::move(c));
    if (ready.ended) stream_ended_ = true;
    if (!writing_) write_stream();
  }

  void write_stream() {
    if (chunks_.empty()) {
      if (stream_ended_ && !last_chunk_sent_ && stream_head_ && !header_pending_) {
        last_chunk_sent_ = true;
        writing_ = true;
        stream_.expires_after(state_.limits.idle_timeout);
        net::async_write(stream_, http::make_chunk_last(),
                         [self = shared_from_this()](beast::error_code, size_t) {
                           self->writing_ = false;
                           self->finish_async();
                           self->close();
                         });
      }
      return;
    }
    writing_ = true;
    stream_.expires_after(state_.limits.idle_timeout);
    if (header_pending_) {
      header_pending_ = false;
      chunks_.pop_front();
      serializer_.emplace(*stream_head_);
      http::async_write_header(
          stream_, *serializer_,
          [self = shared_from_this()](beast::error_code ec, size_t) { self->after_stream_write(ec); });
      return;
    }
    current_chunk_ = std::move(chunks_.front());
    chunks_.pop_front();
    net::async_write(
        stream_, http::make_chunk(net::buffer(current_chunk_)),
        [self = shared_from_this()](beast::error_code ec, size_t) { self->after_stream_write(ec); });
  }

  void after_stream_write(beast::error_code ec) {
    writing_ = false;
    if (ec) {
      if (pending_) pending_->cancel();
      finish_async();
      return close();
    }
    write_stream();
  }

  // The pending response is done: drop it and its waker (and the waker's hold on this session).
  void finish_async() {
    if (pending_) pending_->set_waker(nullptr);
    pending_.reset();
    // Released last: the caller still runs inside a handler that holds the session.
    hold_self_.reset();
  }

  void send_error(int status, const std::string& message) {
    keep_alive_ = false;
    send(json_error(status, message));
  }

  void send(HttpResponse response) {
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(response.status),
                                                                   version_);
    res->set(http::field::server, "arena");
    res->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) res->set(name, value);
    const size_t length = response.body.size();
    if (!head_only_) res->body() = std::move(response.body);
    res->keep_alive(keep_alive_);
    res->content_length(length);
    if (head_only_) res->body().clear();
    stream_.expires_after(state_.limits.idle_timeout);
    if (head_only_) {
      auto sr = std::make_shared<http::response_serializer<http::string_body>>(*res);
      http::async_write_header(stream_, *sr,
                               [self = shared_from_this(), res, sr](beast::error_code ec, size_t) {
                                 self->after_write(ec, !res->keep_alive());
                               });
      return;
    }
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, size_t) {
      self->after_write(ec, !res->keep_alive());
    });
  }

  void after_write(beast::error_code ec, bool close_after) {
    if (ec || close_after) return close();
    wait_for_request();
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  ServerState& state_;
  ConnectionSlot slot_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true, head_only_ = false;
  unsigned version_ = 11;
  // A pending asynchronous response and, when it streams, its parts.
  std::shared_ptr<AsyncResponse> pending_;
  std::shared_ptr<HttpSession> hold_self_;  // set while pending_ is produced
  std::optional<http::response<http::empty_body>> stream_head_;
  std::optional<http::response_serializer<http::empty_body>> serializer_;
  std::deque<std::string> chunks_;
  std::string current_chunk_;
  bool writing_ = false, header_pending_ = false, stream_ended_ = false, last_chunk_sent_ = false;
};

// --- listener ----------------------------------------------------------------------------------

// Answers a connection over the cap with 503 and closes it.
void reject_connection(tcp::socket&& socket) {
  auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
  static const std::string body = R"({"error":"too many connections to this server; retry later"})";
  static const std::string response = fmt::format(
      "HTTP/1.1 503 Service Unavailable\r\nServer: arena\r\nContent-Type: application/json\r\n"
      "Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{}",
      body.size(), body);
  stream->expires_after(std::chrono::seconds(2));
  net::async_write(*stream, net::buffer(response), [stream](beast::error_code, size_t) {
    beast::error_code ignored;
    stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream->close();
  });
}

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(net::io_context& ioc, tcp::acceptor acceptor, ServerState& state)
      : ioc_(ioc), acceptor_(std::move(acceptor)), state_(state) {}

  void run() { do_accept(); }
  void stop() {
    beast::error_code ignored;
    acceptor_.close(ignored);
  }

 private:
  void do_accept() {
    acceptor_.async_accept(net::make_strand(ioc_),
                           beast::bind_front_handler(&Listener::on_accept, shared_from_this()));
  }

  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) return;
    if (!ec) {
      if (state_.connections >= state_.limits.max_connections)
        reject_connection(std::move(socket));
      else
        std::make_shared<HttpSession>(std::move(socket), state_)->run();
    }
    do_accept();
  }

  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  ServerState& state_;
};

}  // namespace

// --- BoardServer -------------------------------------------------------------------------------

struct BoardServer::Impl {
  // Declaration order is destruction order reversed: the io_context (and every session in its
  // handlers) goes before the hub and router they point to.
  ServerOptions options;
  std::vector<models::EngineSource> engines;
  std::unique_ptr<Hub> hub;
  std::unique_ptr<Router> router;
  ServerState state;
  EngineSampler sampler;
  std::string url;
  uint16_t port = 0;
  net::io_context ioc{1};
  std::optional<net::steady_timer> metrics_timer;
  std::shared_ptr<Listener> listener;
  std::thread thread;

  explicit Impl(std::vector<models::EngineSource> e) : engines(e), sampler(std::move(e)) {}

  void schedule_sample() {
    if (options.metrics_interval.count() <= 0 || engines.empty()) return;
    metrics_timer->expires_after(options.metrics_interval);
    metrics_timer->async_wait([this](beast::error_code ec) {
      if (ec) return;
      const double now = unix_now();
      for (nlohmann::json& sample : sampler.sample(now))
        if (!hub->has_recent_external_metrics(sample.value("model", ""), now, 5.0))
          hub->ingest(std::move(sample));
      schedule_sample();
    });
  }
};

std::expected<std::unique_ptr<BoardServer>, std::string> BoardServer::start(
    const config::WebConfig& web, std::filesystem::path assets_dir, std::vector<models::EngineSource> engines,
    ServerOptions options) {
  auto impl = std::make_unique<Impl>(engines);
  Impl& s = *impl;
  s.options = std::move(options);
  s.hub = std::make_unique<Hub>([&s](std::function<void()> f) { net::post(s.ioc, std::move(f)); },
                                s.options.history_seconds);
  s.router = std::make_unique<Router>(*s.hub, StaticFiles(std::move(assets_dir)), engines, s.options.api);
  s.state.hub = s.hub.get();
  s.state.router = s.router.get();
  s.state.limits = s.options.limits;

  beast::error_code ec;
  const auto address = net::ip::make_address(web.bind, ec);
  if (ec)
    return std::unexpected(fmt::format("web.bind '{}' is not an IP address: {}", web.bind, ec.message()));
  if (web.port < 0 || web.port > 65535)
    return std::unexpected(fmt::format("web.port {} is out of range (0-65535)", web.port));
  tcp::acceptor acceptor(s.ioc);
  const tcp::endpoint endpoint(address, static_cast<uint16_t>(web.port));
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    return std::unexpected(
        fmt::format("cannot listen on {}:{}: {} (choose another --web-port, or 0 for none)", web.bind,
                    web.port, ec.message()));
  s.port = acceptor.local_endpoint().port();
  const std::string host = address.is_v6() ? "[" + web.bind + "]" : web.bind;
  s.url = fmt::format("http://{}:{}/", host, s.port);
  s.listener = std::make_shared<Listener>(s.ioc, std::move(acceptor), s.state);
  s.listener->run();
  s.metrics_timer.emplace(s.ioc);
  s.schedule_sample();
  s.thread = std::thread([&s] {
    for (;;) {
      try {
        s.ioc.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("web: {}", e.what());  // a handler threw: keep serving
      }
    }
  });
  return std::unique_ptr<BoardServer>(new BoardServer(std::move(impl)));
}

BoardServer::BoardServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BoardServer::~BoardServer() {
  if (!impl_) return;
  net::post(impl_->ioc, [s = impl_.get()] {
    s->listener->stop();
    if (s->metrics_timer) s->metrics_timer->cancel();
  });
  impl_->ioc.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

tournament::TournamentObserver* BoardServer::observer() {
  return impl_->hub.get();
}
std::string BoardServer::url() const {
  return impl_->url;
}
uint16_t BoardServer::port() const {
  return impl_->port;
}

bool BoardServer::run_on_io(const std::function<void(Hub&)>& f, std::chrono::milliseconds timeout) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> future = done->get_future();
  net::post(impl_->ioc, [s = impl_.get(), f, done] {
    f(*s->hub);
    done->set_value();
  });
  return future.wait_for(timeout) == std::future_status::ready;
}

int32_t BoardServer::num_connections() {
  auto result = std::make_shared<std::atomic<int32_t>>(-1);
  if (!run_on_io([this, result](Hub&) { result->store(impl_->state.connections); })) return -1;
  return result->load();
}

std::filesystem::path find_assets_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const auto& candidate : {exe.parent_path().parent_path() / "share" / "arena" / "web",
                                  exe.parent_path() / "share" / "arena" / "web"})
      if (std::filesystem::is_regular_file(candidate / "index.html", ec)) return candidate;
  }
#ifdef ARENA_WEB_SOURCE_DIR
  const std::filesystem::path source = ARENA_WEB_SOURCE_DIR;
  if (std::filesystem::is_regular_file(source / "index.html", ec)) return source;
#endif
  return {};
}

}  // namespace arena::server
