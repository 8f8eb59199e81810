// Which handler answers a request: the REST API over the hub's state (/api/...), /metrics,
// /health, the page routes and static assets, and an optional API handler for /v1 (the
// OpenAI-compatible endpoints of `arena serve`). Runs on the server's io thread.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "arena/models/engine_source.h"
#include "arena/server/http_types.h"
#include "arena/server/hub.h"
#include "arena/server/static_files.h"

namespace arena::server {

// Answers the /v1 routes (the OpenAI-compatible API).
class ApiHandler {
 public:
  virtual ~ApiHandler() = default;
  // The response to a request whose path starts with /v1/.
  virtual RouteResult handle(const HttpRequest& request) = 0;
};

// What the server's sessions ask: the response to a request, and the hub a WebSocket joins.
// Router serves one tournament; ViewRouter (view_router.h) several under path prefixes.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // The response to `request`.
  virtual RouteResult route(const HttpRequest& request) = 0;
  // The hub a WebSocket upgrade to `path` joins; null when that path has none (404).
  virtual Hub* websocket_hub(std::string_view path) = 0;
};

class Router final : public RequestHandler {
 public:
  Router(Hub& hub, StaticFiles assets, std::vector<models::EngineSource> engines,
         std::shared_ptr<ApiHandler> api);

  RouteResult route(const HttpRequest& request) override;
  // The tournament's hub for /ws.
  Hub* websocket_hub(std::string_view path) override { return path == "/ws" ? &hub_ : nullptr; }

 private:
  RouteResult route_unchecked(const HttpRequest& request);
  HttpResponse rest(const HttpRequest& request, std::string_view path);

  Hub& hub_;
  StaticFiles assets_;
  std::vector<models::EngineSource> engines_;
  std::shared_ptr<ApiHandler> api_;
};

}  // namespace arena::server
