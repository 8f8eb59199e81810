// A small synchronous Beast client for the server tests: HTTP requests and a WebSocket, every
// operation under a timeout so a broken server fails the test instead of hanging it.
#pragma once

#include <array>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace arena::test {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

struct HttpResult {
  int status = 0;
  std::string body;
  http::response<http::string_body> raw;
};

// One request on a fresh connection to 127.0.0.1:port; status 0 and the error in body on failure.
inline HttpResult http_request(uint16_t port, http::verb method, const std::string& target,
                               const std::string& body = "",
                               const std::string& content_type = "application/json",
                               std::chrono::seconds timeout = std::chrono::seconds(10)) {
  HttpResult out;
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::error_code ec;
  stream.expires_after(timeout);
  stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
  if (ec) {
    out.body = "connect: " + ec.message();
    return out;
  }
  http::request<http::string_body> req(method, target, 11);
  req.set(http::field::host, "127.0.0.1");
  req.keep_alive(false);
  if (!body.empty() || method == http::verb::post) {
    req.set(http::field::content_type, content_type);
    req.body() = body;
    req.prepare_payload();
  }
  // The synchronous calls do not honour tcp_stream's timeout: run them as async operations.
  http::async_write(stream, req, [&](beast::error_code e, size_t) { ec = e; });
  ioc.run();
  ioc.restart();
  if (ec) {
    out.body = "write: " + ec.message();
    return out;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  stream.expires_after(timeout);
  http::async_read(stream, buffer, parser, [&](beast::error_code e, size_t) { ec = e; });
  ioc.run();
  if (ec) {
    out.body = "read: " + ec.message();
    return out;
  }
  out.raw = parser.release();
  out.status = static_cast<int>(out.raw.result_int());
  out.body = out.raw.body();
  return out;
}

inline HttpResult http_get(uint16_t port, const std::string& target) {
  return http_request(port, http::verb::get, target);
}

inline HttpResult http_post(uint16_t port, const std::string& target, const std::string& body) {
  return http_request(port, http::verb::post, target, body);
}

// Sends raw bytes and returns what the server answers until it closes (or the timeout).
inline std::string raw_exchange(uint16_t port, const std::string& bytes,
                                std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::error_code ec;
  stream.expires_after(timeout);
  stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return "connect: " + ec.message();
  std::string reply;
  net::async_write(stream, net::buffer(bytes), [](beast::error_code, size_t) {});
  ioc.run();
  ioc.restart();
  std::array<char, 4096> chunk{};
  std::function<void(beast::error_code, size_t)> on_read = [&](beast::error_code e, size_t n) {
    reply.append(chunk.data(), n);
    if (!e) stream.async_read_some(net::buffer(chunk), on_read);
  };
  stream.async_read_some(net::buffer(chunk), on_read);
  ioc.run();
  return reply;
}

// A WebSocket client of /ws (or of `target`: `arena view`'s /t/<slug>/ws).
class WsClient {
 public:
  explicit WsClient(uint16_t port, const std::string& target = "/ws") : ws_(ioc_) {
    beast::error_code ec;
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(5));
    beast::get_lowest_layer(ws_).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
    if (ec) {
      error_ = "connect: " + ec.message();
      return;
    }
    ws_.async_handshake("127.0.0.1", target, [&](beast::error_code e) { ec = e; });
    run();
    beast::get_lowest_layer(ws_).expires_never();
    if (ec) error_ = "handshake: " + ec.message();
  }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // The next message as JSON, or nullopt after `timeout` / on a closed connection (error() says).
  std::optional<nlohmann::json> read(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    auto text = read_text(timeout);
    if (!text) return std::nullopt;
    return nlohmann::json::parse(*text, nullptr, false);
  }

  std::optional<std::string> read_text(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    bool done = false;
    ws_.async_read(buffer, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    ioc_.restart();
    ioc_.run_for(timeout);
    if (!done) {
      // Abandon the read: cancel it and let its handler run.
      beast::get_lowest_layer(ws_).cancel();
      ioc_.restart();
      ioc_.run_for(std::chrono::milliseconds(500));
      error_ = "timeout";
      return std::nullopt;
    }
    if (ec) {
      error_ = ec.message();
      return std::nullopt;
    }
    return beast::buffers_to_string(buffer.data());
  }

  // Sends one text message; false on failure.
  bool send(const std::string& text) {
    beast::error_code ec;
    bool done = false;
    ws_.text(true);
    ws_.async_write(net::buffer(text), [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    ioc_.restart();
    ioc_.run_for(std::chrono::seconds(5));
    if (!done || ec) error_ = done ? ec.message() : "write timeout";
    return done && !ec;
  }

  // The close code the server sent (after a read failed with "closed").
  int close_code() const { return static_cast<int>(ws_.reason().code); }

 private:
  void run() {
    ioc_.restart();
    ioc_.run_for(std::chrono::seconds(5));
  }

  net::io_context ioc_;
  beast::websocket::stream<beast::tcp_stream> ws_;
  std::string error_;
};

}  // namespace arena::test
