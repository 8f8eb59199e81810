// `arena view DIR... [--port N] [--bind ADDR]`: the board view of finished (or growing)
// tournaments from their results folders' event logs alone (arena::server::ViewServer): a list
// page of the tournaments at /, each tournament's overview, games, moves and PGN under
// /t/<name>/. A folder that `arena run` is still writing is followed live. Runs until SIGINT /
// SIGTERM. The Host rules are `arena run`'s (docs/security.md); the server is read-only.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "arena/cli/command.h"
#include "arena/config/web_names.h"
#include "arena/server/view_server.h"

namespace arena::cli {

namespace {

struct ViewFlags {
  std::vector<std::string> dirs;
  std::string bind = "127.0.0.1", assets;
  int32_t port = 8080;
  std::vector<std::string> allowed_hosts, allowed_origins;
  double seconds = -1;  // --for: how long to serve (tests); < 0 = until Ctrl-C
};

std::atomic<bool> g_stop{false};

extern "C" void on_view_signal(int) {
  g_stop.store(true);
}

int run_view(const ViewFlags& f) {
  std::vector<std::filesystem::path> dirs(f.dirs.begin(), f.dirs.end());
  const std::filesystem::path assets =
      f.assets.empty() ? server::find_assets_dir() : std::filesystem::path(f.assets);
  if (assets.empty())
    fmt::print(stderr, "arena view: warning: the board view's assets were not found (pages are 404)\n");
  config::WebConfig web;
  web.bind = f.bind;
  web.port = f.port;
  web.allowed_hosts = f.allowed_hosts;
  web.allowed_origins = f.allowed_origins;
  auto view = server::ViewServer::start(web, assets, dirs);
  if (!view) return fail("view", view.error());

  std::signal(SIGINT, on_view_signal);
  std::signal(SIGTERM, on_view_signal);
  const std::string url = (*view)->server().url();
  fmt::print(stderr, "arena view: {} tournament{} at {}\n", dirs.size(), dirs.size() == 1 ? "" : "s", url);
  for (const server::ViewName& name : (*view)->names())
    fmt::print(stderr, "arena view:   {} at {}t/{}/\n", name.name, url, name.slug);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(f.seconds);
  while (!g_stop.load() && (f.seconds < 0 || std::chrono::steady_clock::now() < until))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  fmt::print(stderr, "arena view: stopping\n");
  return 0;
}

}  // namespace

void add_view_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<ViewFlags>();
  ViewFlags& f = *flags;
  auto* cmd = root.add_subcommand(
      "view", "Serve the board view of results folders from their event logs (finished or still running)");
  cmd->add_option("dirs", f.dirs, "Results folders of `arena run` (each with events.jsonl)")->required();
  cmd->add_option("--port", f.port, "Port (default 8080; 0 = any free port)")->check(CLI::Range(0, 65535));
  cmd->add_option("--bind", f.bind, "Address to bind (default 127.0.0.1)");
  cmd->add_option("--allowed-host", f.allowed_hosts,
                  "A host name the server also answers to (repeatable; e.g. a reverse proxy's)")
      ->check(name_check(&config::check_allowed_host, "HOST"))
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--allowed-origin", f.allowed_origins,
                  "A browser origin whose pages may open the WebSockets (repeatable)")
      ->check(name_check(&config::check_allowed_origin, "ORIGIN"))
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--assets", f.assets, "The board view's asset folder (default: beside the binary)");
  cmd->add_option("--for", f.seconds, "Serve this many seconds, then exit (default: until Ctrl-C)")
      ->check(number_in(0, 1e9));
  cmd->callback([flags, &action] { action = [flags] { return run_view(*flags); }; });
}

}  // namespace arena::cli
