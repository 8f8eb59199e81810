// The board server's sockets: the only translation unit that includes Boost.Beast (it compiles
// slowly). Listener (here) -> HttpSession (http_session.h: static files, REST, /metrics, /v1
// through the Router; streamed AsyncResponses) -> WebsocketSession on /ws (websocket_session.h:
// reads client messages into the Hub; one write in flight; a bounded send queue). Everything runs
// on one io thread.
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

#include "arena/server/http_session.h"
#include "arena/server/view_router.h"
#include "arena/server/websocket_session.h"
#include "arena/tournament/metrics_sampler.h"

namespace arena::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using sessions::HttpSession;
using sessions::ServerState;

namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

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
  std::vector<std::unique_ptr<Hub>> hubs;  // one per tournament (`arena view`: several)
  std::unique_ptr<RequestHandler> router;
  std::unique_ptr<AccessPolicy> access;
  ServerState state;
  tournament::MetricsSampler sampler;  // no metrics.csv: samples for the hub only
  std::string url;
  uint16_t port = 0;
  net::io_context ioc{1};
  std::optional<net::steady_timer> metrics_timer;
  std::shared_ptr<Listener> listener;
  std::thread thread;

  explicit Impl(std::vector<models::EngineSource> e) : engines(e), sampler(std::move(e)) {}

  Hub& add_hub() {
    hubs.push_back(std::make_unique<Hub>([this](std::function<void()> f) { net::post(ioc, std::move(f)); },
                                         options.history_seconds));
    return *hubs.back();
  }

  void schedule_sample() {
    if (options.metrics_interval.count() <= 0 || engines.empty()) return;
    metrics_timer->expires_after(options.metrics_interval);
    metrics_timer->async_wait([this](beast::error_code ec) {
      if (ec) return;
      const double now = unix_now();
      for (const tournament::EngineSample& sample : sampler.sample(now, 0, 0)) {
        Hub* hub = hubs[0].get();  // the server's own samples: `arena run` and `arena serve` (one hub)
        if (hub->has_recent_external_metrics(sample.model, now, 5.0)) continue;
        tournament::MetricsEvent event = tournament::MetricsSampler::to_event(sample, std::nullopt);
        event.source = "server";
        hub->ingest(tournament::Event{std::nullopt, now, std::move(event)});
      }
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
  s.add_hub();
  s.router = std::make_unique<Router>(*s.hubs[0], StaticFiles(std::move(assets_dir)), engines, s.options.api);
  return listen(web, std::move(impl));
}

std::expected<std::unique_ptr<BoardServer>, std::string> BoardServer::start_view(
    const config::WebConfig& web, std::filesystem::path assets_dir, const std::vector<ViewName>& names,
    ServerOptions options) {
  if (names.empty()) return std::unexpected(std::string("no tournament to view"));
  auto impl = std::make_unique<Impl>(std::vector<models::EngineSource>{});
  Impl& s = *impl;
  s.options = std::move(options);
  s.options.api.reset();  // read-only: no /v1
  std::vector<ViewRouter::Tournament> tournaments;
  for (const ViewName& name : names) tournaments.push_back({name, s.add_hub()});
  s.router = std::make_unique<ViewRouter>(std::move(tournaments), StaticFiles(std::move(assets_dir)));
  return listen(web, std::move(impl));
}

std::expected<std::unique_ptr<BoardServer>, std::string> BoardServer::listen(const config::WebConfig& web,
                                                                             std::unique_ptr<Impl> impl) {
  Impl& s = *impl;
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
  s.access = std::make_unique<AccessPolicy>(
      AccessRules{web.bind, s.port, web.allowed_hosts, web.allowed_origins, s.options.api_key});
  s.state.access = s.access.get();
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
  // Sessions still waiting for an engine's answer hold themselves: let them go.
  for (auto& [session, release] : std::exchange(impl_->state.held, {})) release();
}

tournament::TournamentObserver* BoardServer::observer() {
  return impl_->hubs[0].get();
}
Hub* BoardServer::hub(size_t i) {
  return i < impl_->hubs.size() ? impl_->hubs[i].get() : nullptr;
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
    f(*s->hubs[0]);
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
