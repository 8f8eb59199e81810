// ViewRouter: the list of tournaments at /, each tournament's Router under /t/<slug>/.
#include "arena/server/view_router.h"

#include <cctype>
#include <set>

#include "arena/tournament/run_lock.h"

namespace arena::server {

using nlohmann::json;

std::vector<ViewName> view_names(const std::vector<std::filesystem::path>& dirs) {
  std::vector<ViewName> out;
  std::set<std::string> taken;
  for (const auto& dir : dirs) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(dir, ec).lexically_normal();
    if (!absolute.has_filename()) absolute = absolute.parent_path();  // "runs/a/" -> "a"
    std::string name = absolute.filename().string();
    if (name.empty()) name = "results";  // the root folder
    std::string slug = name;
    for (char& c : slug)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '-';
    if (slug == "." || slug == "..") slug = "results";
    std::string unique = slug;
    for (int n = 2; taken.contains(unique); ++n) unique = slug + "-" + std::to_string(n);
    taken.insert(unique);
    out.push_back({name, unique, absolute});
  }
  return out;
}

ViewRouter::ViewRouter(std::vector<Tournament> tournaments, StaticFiles assets) : assets_(std::move(assets)) {
  for (Tournament& t : tournaments)
    mounted_.push_back({t.name, &t.hub,
                        std::make_unique<Router>(t.hub, assets_, std::vector<models::EngineSource>{},
                                                 std::shared_ptr<ApiHandler>{})});
}

ViewRouter::Mounted* ViewRouter::find(std::string_view path, std::string_view& rest) {
  constexpr std::string_view prefix = "/t/";
  if (!path.starts_with(prefix)) return nullptr;
  const std::string_view tail = path.substr(prefix.size());
  const size_t slash = tail.find('/');
  const std::string_view slug = tail.substr(0, slash);
  for (Mounted& m : mounted_) {
    if (m.name.slug != slug) continue;
    rest = slash == std::string_view::npos ? std::string_view("/") : tail.substr(slash);
    return &m;
  }
  return nullptr;
}

Hub* ViewRouter::websocket_hub(std::string_view path) {
  std::string_view rest;
  Mounted* m = find(path, rest);
  return m && rest == "/ws" ? m->hub : nullptr;
}

json ViewRouter::tournaments_json() const {
  json list = json::array();
  for (const Mounted& m : mounted_) {
    json t = m.hub->tournament_json();
    const bool started = t.contains("config_hash");
    t["name"] = m.name.name;
    t["slug"] = m.name.slug;
    t["url"] = "/t/" + m.name.slug + "/";
    // "waiting": no tournament_start in the log yet; "running": no tournament_end yet and a run
    // holds the folder's lock (or the folder has no lock: written before arena locked folders);
    // "stopped": no tournament_end and no run holds the lock (it was killed; --resume continues).
    std::string status = "running";
    if (!started)
      status = "waiting";
    else if (!t.value("finished", false) &&
             tournament::run_lock_state(m.name.dir) == tournament::RunLockState::Free)
      status = "stopped";
    else if (t.value("interrupted", false))
      status = "interrupted";
    else if (t.value("finished", false))
      status = "finished";
    t["status"] = status;
    t["standings"] = m.hub->standings_json();
    list.push_back(std::move(t));
  }
  return list;
}

RouteResult ViewRouter::route(const HttpRequest& request) {
  try {
    return route_unchecked(request);
  } catch (const std::exception& e) {
    return {json_error(500, std::string("internal error: ") + e.what()), nullptr};
  }
}

RouteResult ViewRouter::route_unchecked(const HttpRequest& request) {
  const std::string_view path = request.path;
  std::string_view rest;
  if (Mounted* m = find(path, rest)) {
    HttpRequest inner = request;
    inner.path = std::string(rest);
    inner.target = inner.query.empty() ? inner.path : inner.path + "?" + inner.query;
    return m->router->route(inner);
  }
  if (path.starts_with("/t/") || path == "/t")
    return {json_error(404, "no such tournament: " + std::string(path) + " (see /api/tournaments)"), nullptr};
  if (path.starts_with("/v1/") || path == "/v1")
    return {json_error(404, "`arena view` is read-only: it has no /v1 API"), nullptr};
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse r = json_error(405, "only GET is allowed on " + std::string(path));
    r.headers.emplace_back("Allow", "GET, HEAD");
    return {r, nullptr};
  }
  if (path == "/api/tournaments")
    return {json_response(tournaments_json().dump(-1, ' ', false, json::error_handler_t::replace)), nullptr};
  if (path.starts_with("/api/") || path == "/api" || path == "/metrics")
    return {
        json_error(404, "no such route: " + std::string(path) +
                            " (/api/tournaments; each tournament's API and /metrics are under /t/<slug>/)"),
        nullptr};
  if (path == "/health") {
    HttpResponse r;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "ok\n";
    return {r, nullptr};
  }
  if (path == "/" || path == "/tournaments") return {assets_.serve("/tournaments.html"), nullptr};
  return {assets_.serve(path), nullptr};
}

}  // namespace arena::server
