// A small blocking HTTP/1.1 server on Boost.Beast for the OpenAI backend tests (until `arena
// serve` exists): listens on 127.0.0.1 on a free port, records every request, answers each with
// what the test's handler returns (optionally after a delay), keeps connections alive.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace openai_test {

struct Received {
  std::string method, target, authorization, body;
  std::string session;  // the X-Session-ID header
};

struct Reply {
  int status = 200;
  std::string body;
  std::chrono::milliseconds delay{0};
};

class FakeServer {
 public:
  explicit FakeServer(std::function<Reply(const Received&)> handler)
      : handler_(std::move(handler)), acceptor_(ioc_) {
    namespace asio = boost::asio;
    const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    accept_thread_ = std::thread([this] { accept_loop(); });
  }

  ~FakeServer() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    boost::system::error_code ec;
    // Wake the blocking accept with one last connection, then stop every session.
    boost::asio::ip::tcp::socket poke(ioc_);
    poke.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
    accept_thread_.join();
    {
      std::lock_guard lock(mutex_);
      for (auto& s : sockets_) s->shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
    }
    for (auto& t : sessions_) t.join();
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  // A port nothing listens on after this server is gone (for connection errors).
  uint16_t port() const { return port_; }

  std::vector<Received> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }
  int connections() const { return connections_.load(); }
  int max_in_flight() const { return max_in_flight_.load(); }

 private:
  void accept_loop() {
    for (;;) {
      auto socket = std::make_shared<boost::asio::ip::tcp::socket>(ioc_);
      boost::system::error_code ec;
      acceptor_.accept(*socket, ec);
      std::lock_guard lock(mutex_);
      if (stopping_ || ec) return;
      ++connections_;
      sockets_.push_back(socket);
      sessions_.emplace_back([this, socket] { session(*socket); });
    }
  }

  void session(boost::asio::ip::tcp::socket& socket) {
    namespace http = boost::beast::http;
    boost::beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> req;
      boost::system::error_code ec;
      http::read(socket, buffer, req, ec);
      if (ec) return;
      Received r{std::string(req.method_string()), std::string(req.target()),
                 std::string(req[http::field::authorization]), req.body(), std::string(req["X-Session-ID"])};
      {
        std::lock_guard lock(mutex_);
        received_.push_back(r);
      }
      const int now = ++in_flight_;
      for (int seen = max_in_flight_.load();
           now > seen && !max_in_flight_.compare_exchange_weak(seen, now);) {
      }
      const Reply reply = handler_(r);
      if (reply.delay.count() > 0) {
        std::unique_lock lock(mutex_);
        cv_.wait_for(lock, reply.delay, [&] { return stopping_; });
      }
      --in_flight_;
      http::response<http::string_body> res{static_cast<http::status>(reply.status), 11};
      res.set(http::field::content_type, "application/json");
      res.body() = reply.body;
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      http::write(socket, res, ec);
      if (ec || !req.keep_alive()) return;
    }
  }

  std::function<Reply(const Received&)> handler_;
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::thread accept_thread_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<Received> received_;
  std::vector<std::shared_ptr<boost::asio::ip::tcp::socket>> sockets_;
  std::vector<std::thread> sessions_;
  std::atomic<int> connections_{0}, in_flight_{0}, max_in_flight_{0};
};

}  // namespace openai_test
