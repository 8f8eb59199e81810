// `arena view`'s server: the board view of results folders from their event logs alone (no
// engine, no model, no re-run). Each folder's RESULTS/events.jsonl is read once at the start (a
// missing log or a damaged line is an error naming the file and line; a torn last line is fine)
// into a hub of a BoardServer::start_view, then followed by one thread that polls every log (every
// 250 ms by default) and feeds what a running `arena run` appends to its hub, so the pages and
// the WebSocket feed stay live; a log replaced by a new run resets its hub (log_follower.h).
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "arena/server/board_server.h"
#include "arena/server/view_router.h"

namespace arena::server {

struct ViewOptions {
  std::chrono::milliseconds poll_interval{250};
  ServerOptions server;
};

class ViewServer {
 public:
  static std::expected<std::unique_ptr<ViewServer>, std::string> start(
      const config::WebConfig& web, std::filesystem::path assets_dir,
      const std::vector<std::filesystem::path>& dirs, ViewOptions options = {});
  // Stops following the logs, then the server.
  ~ViewServer();
  ViewServer(const ViewServer&) = delete;
  ViewServer& operator=(const ViewServer&) = delete;

  BoardServer& server() { return *server_; }
  const std::vector<ViewName>& names() const { return names_; }

  struct Follow;

 private:
  ViewServer();
  void follow_loop();

  std::vector<ViewName> names_;
  std::unique_ptr<BoardServer> server_;
  std::unique_ptr<Follow> follow_;  // the followers, the thread and its stop signal
};

// RESULTS/events.jsonl of a results folder.
std::filesystem::path event_log_path(const std::filesystem::path& dir);

}  // namespace arena::server
