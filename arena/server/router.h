// Which handler answers a request: the REST API over the hub's state (/api/...), /metrics,
// /health, the page routes and static assets, and an optional API handler for /v1 (the
// OpenAI-compatible endpoints of `arena serve`). Runs on the server's io thread.
#pragma once

#include <memory>
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

class Router {
 public:
  Router(Hub& hub, StaticFiles assets, std::vector<models::EngineSource> engines,
         std::shared_ptr<ApiHandler> api);

  // The response to `request`.
  RouteResult route(const HttpRequest& request);

 private:
  RouteResult route_unchecked(const HttpRequest& request);
  HttpResponse rest(const HttpRequest& request, std::string_view path);

  Hub& hub_;
  StaticFiles assets_;
  std::vector<models::EngineSource> engines_;
  std::shared_ptr<ApiHandler> api_;
};

}  // namespace arena::server
