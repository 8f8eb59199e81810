// The board server's WebSocket session on /ws (Boost.Beast): reads client messages into the Hub,
// keeps one write in flight and a bounded send queue (a client too slow for it is dropped); and
// what every session shares (the hub, the router, the access rules, the limits, the connection
// count). Included
// only by board_server.cpp, the one translation unit of the server that compiles Beast.
#pragma once

#include <spdlog/spdlog.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "arena/server/access_policy.h"
#include "arena/server/board_server.h"
#include "arena/server/hub.h"
#include "arena/server/router.h"

namespace arena::server::sessions {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// What every session shares: the router (which also names the hub of each WebSocket path), the
// access rules, the limits and the connection count.
struct ServerState {
  RequestHandler* router = nullptr;
  const AccessPolicy* access = nullptr;
  ServerLimits limits;
  int32_t connections = 0;  // io thread only
  // The sessions that hold themselves while an asynchronous response is produced, each with what
  // lets it go (io thread only): a server that stops with a response unfinished releases them
  // after its io thread has ended, so no session outlives it in a cycle with itself.
  std::unordered_map<const void*, std::function<void()>> held;
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

class WebsocketSession : public std::enable_shared_from_this<WebsocketSession>, public HubClient {
 public:
  WebsocketSession(tcp::socket&& socket, ServerState& state, ConnectionSlot slot, Hub& hub)
      : ws_(std::move(socket)), state_(state), slot_(std::move(slot)), hub_(hub) {}

  ~WebsocketSession() override {
    if (joined_) hub_.leave(this);
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
    hub_.join(this);
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
      hub_.handle_message(this, text);
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
      hub_.leave(this);
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
  Hub& hub_;  // the tournament this socket watches
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_bytes_ = 0;
  bool joined_ = false, closing_ = false;
};

}  // namespace arena::server::sessions
