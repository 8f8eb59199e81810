// The routes of `arena view` (several finished or growing tournaments, read from their event
// logs): `/` is the list page of the tournaments (web/tournaments.html) and `/api/tournaments`
// its JSON; each tournament's pages, REST API, /metrics and WebSocket are those of `arena run`
// (Router) under `/t/<slug>/`; the shared assets (/css, /js) stay at the root. Read-only: no /v1.
// Runs on the server's io thread.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "arena/server/router.h"

namespace arena::server {

// A tournament's name (its results folder's name), the URL-safe slug of its path prefix, and the
// folder itself.
struct ViewName {
  std::string name, slug;
  std::filesystem::path dir;
};

// The names of results folders: each folder's own name (of its absolute form, so "." works), the
// slug that name with every character outside [A-Za-z0-9._-] made '-', and "-2", "-3", ...
// appended to a slug already taken (two folders named "out" in different places).
std::vector<ViewName> view_names(const std::vector<std::filesystem::path>& dirs);

class ViewRouter final : public RequestHandler {
 public:
  struct Tournament {
    ViewName name;
    Hub& hub;
  };
  ViewRouter(std::vector<Tournament> tournaments, StaticFiles assets);

  RouteResult route(const HttpRequest& request) override;
  // The hub of `/t/<slug>/ws`.
  Hub* websocket_hub(std::string_view path) override;

  // [{name, slug, url, status (waiting, running, stopped, interrupted, finished), variants, agents, models,
  // games_done, games_total, ..., standings}] in the order the folders were given.
  nlohmann::json tournaments_json() const;

 private:
  struct Mounted {
    ViewName name;
    Hub* hub;
    std::unique_ptr<Router> router;
  };
  // The tournament whose prefix `path` starts with (null if none) and the path below it ("/...").
  Mounted* find(std::string_view path, std::string_view& rest);
  RouteResult route_unchecked(const HttpRequest& request);

  std::vector<Mounted> mounted_;
  StaticFiles assets_;
};

}  // namespace arena::server
