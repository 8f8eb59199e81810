// The board server: Boost.Beast HTTP + WebSocket on one Asio io thread, shaped like Beast's
// CppCon2018 WebSocket chat (a listener, an http_session per connection serving static files,
// REST, /metrics and /v1, upgraded to a websocket_session on /ws; one write in flight and a
// bounded queue per WebSocket; the Hub fans events out). Started by `arena run` (its observer()
// receives the tournament's events) and by `arena serve` (with an ApiHandler for /v1).
//
// Limits fail fast: a connection cap (503 beyond it), request body / header / WebSocket message
// size limits, header and idle timeouts, a slow WebSocket reader dropped once its queue is full.
// Every request passes the AccessPolicy first (access_policy.h): its Host must name the server
// (web.bind, web.allowed_hosts), a browser's WebSocket or POST must come from the server's own
// origin (or web.allowed_origins), and /v1 needs options.api_key when one is set.
// The BoardServer must outlive every call into observer().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arena/config/config.h"
#include "arena/models/engine_source.h"
#include "arena/server/hub.h"
#include "arena/server/router.h"
#include "arena/server/view_router.h"
#include "arena/tournament/observer.h"

namespace arena::server {

struct ServerLimits {
  int32_t max_connections = 256;                    // open HTTP + WebSocket connections; 503 beyond
  size_t max_body_bytes = 1 << 20;                  // request body; 413 beyond
  size_t max_header_bytes = 16 << 10;               // request header; 431 beyond
  size_t max_ws_message_bytes = 64 << 10;           // client message; closed with 1009 beyond
  std::chrono::milliseconds header_timeout{10000};  // to read a request once its first byte came
  std::chrono::milliseconds idle_timeout{60000};    // keep-alive wait, and any one write
  size_t ws_queue_soft = 256;                       // queued messages beyond which droppable ones are skipped
  size_t ws_queue_hard = 1024;                      // queued messages beyond which the client is dropped
  size_t ws_queue_bytes = 16 << 20;                 // queued bytes beyond which the client is dropped
};

struct ServerOptions {
  ServerLimits limits;
  std::shared_ptr<ApiHandler> api;                   // answers /v1 (arena serve), or null
  std::chrono::milliseconds metrics_interval{1000};  // the server's own engine samples (0 = none)
  double history_seconds = 3600;                     // metrics kept for the dashboard
  // `Authorization: Bearer` key required on /v1 ("" = none; docs/security.md). Never logged.
  std::string api_key;
};

class BoardServer {
 public:
  // Binds web.bind:web.port (port 0 in `web` means "pick a free port" here; callers that want no
  // server do not call start) and starts the io thread. An error when the address cannot be bound.
  static std::expected<std::unique_ptr<BoardServer>, std::string> start(
      const config::WebConfig& web, std::filesystem::path assets_dir,
      std::vector<models::EngineSource> engines, ServerOptions options = {});
  // `arena view`: one hub per name, each tournament under /t/<slug>/ and the list of them at /
  // (view_router.h); no engines, no /v1. Slugs must be distinct (view_names makes them so).
  static std::expected<std::unique_ptr<BoardServer>, std::string> start_view(
      const config::WebConfig& web, std::filesystem::path assets_dir, const std::vector<ViewName>& names,
      ServerOptions options = {});
  // Stops the io thread and closes every connection.
  ~BoardServer();
  BoardServer(const BoardServer&) = delete;
  BoardServer& operator=(const BoardServer&) = delete;

  // The hub as the tournament's observer (thread-safe; never blocks).
  tournament::TournamentObserver* observer();
  // The hub of tournament `i` (start_view's order; start's one is 0), null beyond them. From other
  // threads only its on_event and post_reset may be called.
  Hub* hub(size_t i);
  // "http://127.0.0.1:8080/".
  std::string url() const;
  // The bound port.
  uint16_t port() const;

  // Runs `f` on the io thread with hub 0 and waits for it (at most `timeout`); false on timeout.
  // For tests and status lines: the hub's accessors may only be used there.
  bool run_on_io(const std::function<void(Hub&)>& f,
                 std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Open connections right now (HTTP and WebSocket), read on the io thread; -1 on timeout.
  int32_t num_connections();

  struct Impl;

 private:
  explicit BoardServer(std::unique_ptr<Impl> impl);
  // Binds the address and starts the io thread for a prepared Impl (hubs and router made).
  static std::expected<std::unique_ptr<BoardServer>, std::string> listen(const config::WebConfig& web,
                                                                         std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The board view's asset folder for the running binary: <exe>/../share/arena/web, else the
// source tree's web/ (a development build); "" when neither exists.
std::filesystem::path find_assets_dir();

}  // namespace arena::server
