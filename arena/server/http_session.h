// The board server's HTTP session (Boost.Beast): reads requests under the size limits and
// timeouts, refuses what the AccessPolicy refuses (Host, Origin, API key), answers static files,
// REST, /metrics and /v1 through the Router (streamed AsyncResponses included), and upgrades /ws
// to a WebsocketSession. Included only by board_server.cpp, the one translation unit of the
// server that compiles Beast.
#pragma once

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>
#include <string>

#include "arena/server/beast_request.h"
#include "arena/server/websocket_session.h"

namespace arena::server::sessions {

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
    const bool upgrade = websocket::is_upgrade(req);
    const HttpRequest request = to_http_request(req);
    // Host, Origin and the API key first (access_policy.h), for upgrades and routes alike.
    if (auto refused = state_.access->refusal(request, upgrade)) {
      keep_alive_ = false;
      return send(std::move(*refused));
    }
    if (upgrade) {
      Hub* hub = state_.router->websocket_hub(request.path);
      if (!hub || request.path != req.target())
        return send_error(404, "WebSocket connections go to /ws (under a tournament's path in `arena view`)");
      stream_.expires_never();
      auto ws = std::make_shared<WebsocketSession>(stream_.release_socket(), state_, std::move(slot_), *hub);
      ws->run(std::move(req));
      return;
    }
    RouteResult result = state_.router->route(request);
    if (!result.async) return send(std::move(result.response));
    // No socket operation is pending while the response is produced: the session holds itself
    // until finish_async() (on this thread, so it is never released on the engine's thread).
    pending_ = std::move(result.async);
    hold_self_ = shared_from_this();
    state_.held[this] = [this] { abandon_async(); };
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
    state_.held.erase(this);
    // Released last: the caller still runs inside a handler that holds the session.
    hold_self_.reset();
  }

  // The server stops while the response is still produced: the producer is told the client went
  // away (its waker goes with it), and the session lets itself go (it may be destroyed here).
  void abandon_async() {
    if (pending_) pending_->cancel();
    pending_.reset();
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

}  // namespace arena::server::sessions
