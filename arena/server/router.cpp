// Router: REST over the hub, /metrics, /health, pages, assets, /v1.
#include "arena/server/router.h"

#include <charconv>

#include "arena/server/prometheus.h"
#include "arena/server/replica_metrics.h"

namespace arena::server {

using nlohmann::json;

Router::Router(Hub& hub, StaticFiles assets, std::vector<models::EngineSource> engines,
               std::shared_ptr<ApiHandler> api)
    : hub_(hub), assets_(std::move(assets)), engines_(std::move(engines)), api_(std::move(api)) {}

namespace {

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

HttpResponse Router::rest(const HttpRequest& request, std::string_view path) {
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse r = json_error(405, "only GET is allowed on " + std::string(path));
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  if (path == "/api/tournament") return json_response(dump(hub_.tournament_json()));
  if (path == "/api/games") return json_response(dump(hub_.games_json()));
  if (path == "/api/standings") return json_response(dump(hub_.standings_json()));
  if (path == "/api/metrics/history") {
    double since = 0;
    if (auto s = request.query_param("since")) {
      auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), since);
      if (ec != std::errc() || end != s->data() + s->size())
        return json_error(400, "query parameter 'since' must be a number (Unix seconds)");
    }
    return json_response(dump(hub_.metrics_history_json(since)));
  }
  constexpr std::string_view games_prefix = "/api/games/";
  if (path.starts_with(games_prefix)) {
    const auto id = percent_decode(path.substr(games_prefix.size()));
    if (!id || id->empty()) return json_error(400, "a game id is needed: /api/games/{id}");
    std::string game_id = *id;
    bool pgn_only = false;
    if (game_id.ends_with(".pgn")) {
      game_id.resize(game_id.size() - 4);
      pgn_only = true;
    }
    auto game = hub_.game_json(game_id);
    if (!game) return json_error(404, "no game '" + game_id + "' (see /api/games)");
    if (pgn_only) {
      HttpResponse r;
      r.content_type = "application/x-chess-pgn; charset=utf-8";
      r.body = (*game)["pgn"].get<std::string>();
      return r;
    }
    return json_response(dump(*game));
  }
  return json_error(404, "no such API route: " + std::string(path) +
                             " (/api/tournament, /api/games, /api/games/{id}, /api/standings, "
                             "/api/metrics/history)");
}

RouteResult Router::route(const HttpRequest& request) {
  // A handler that throws (a malformed event field, a bug) answers 500 instead of losing the
  // connection; the error is in the body.
  try {
    return route_unchecked(request);
  } catch (const std::exception& e) {
    return {json_error(500, std::string("internal error: ") + e.what()), nullptr};
  }
}

RouteResult Router::route_unchecked(const HttpRequest& request) {
  const std::string_view path = request.path;
  if (path.starts_with("/v1/") || path == "/v1") {
    if (api_) return api_->handle(request);
    return {json_error(404, "this server has no /v1 API (it is started by `arena serve`)"), nullptr};
  }
  if (path.starts_with("/api/") || path == "/api") return {rest(request, path), nullptr};
  if (path == "/health") {
    HttpResponse r;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "ok\n";
    return {r, nullptr};
  }
  if (path == "/metrics") {
    HttpResponse r;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = render_prometheus(engines_, hub_.stats(), hub_.standings_json()) + render_replica_metrics();
    return {r, nullptr};
  }
  if (request.method != "GET" && request.method != "HEAD")
    return {json_error(405, "only GET is allowed on " + std::string(path)), nullptr};
  // Page routes: /game/{id} and /dashboard are pages of the asset folder.
  if (path == "/" || path == "/overview") return {assets_.serve("/index.html"), nullptr};
  if (path.starts_with("/game/") || path == "/game") return {assets_.serve("/game.html"), nullptr};
  if (path == "/dashboard") return {assets_.serve("/dashboard.html"), nullptr};
  return {assets_.serve(path), nullptr};
}

}  // namespace arena::server
