// `arena view`'s server: the logs read, then followed into their hubs (see view_server.h).
#include "arena/server/view_server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "arena/tournament/log_follower.h"

namespace arena::server {

namespace {

// Polls this many times in a row at most while a log has more than one read's worth waiting, so
// one huge log does not hold back the others.
constexpr int kReadsPerRound = 8;

}  // namespace

struct ViewServer::Follow {
  struct Log {
    tournament::LogFollower follower;
    Hub* hub;
    std::vector<std::string> last_errors;  // logged once, not at every poll
    bool was_missing = false;
  };
  std::vector<Log> logs;
  std::chrono::milliseconds interval;
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread thread;
};

std::filesystem::path event_log_path(const std::filesystem::path& dir) {
  return dir / "events.jsonl";
}

std::expected<std::unique_ptr<ViewServer>, std::string> ViewServer::start(
    const config::WebConfig& web, std::filesystem::path assets_dir,
    const std::vector<std::filesystem::path>& dirs, ViewOptions options) {
  if (dirs.empty()) return std::unexpected(std::string("no results folder given"));
  std::unique_ptr<ViewServer> view(new ViewServer());
  view->follow_ = std::make_unique<Follow>();
  view->follow_->interval = options.poll_interval;
  // Every log is read whole first, so a damaged one is an error before anything is served.
  std::vector<std::vector<tournament::Event>> initial;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      return std::unexpected(
          fmt::format("'{}' is not a folder (give results folders of `arena run`)", dir.string()));
    const std::filesystem::path log = event_log_path(dir);
    if (!std::filesystem::is_regular_file(log, ec))
      return std::unexpected(fmt::format(
          "'{}' has no event log '{}' (is it a results folder of `arena run`?)", dir.string(), log.string()));
    tournament::LogFollower follower(log);
    std::vector<tournament::Event> events;
    for (;;) {
      tournament::FollowBatch batch = follower.poll();
      if (!batch.errors.empty()) return std::unexpected(batch.errors.front());
      if (batch.missing)
        return std::unexpected(fmt::format("'{}' went away while it was read", log.string()));
      for (auto& e : batch.events) events.push_back(std::move(e));
      if (!batch.more) break;
    }
    spdlog::info("view: {}: {} events", log.string(), events.size());
    initial.push_back(std::move(events));
    view->follow_->logs.push_back({std::move(follower), nullptr, {}, false});
  }
  view->names_ = view_names(dirs);
  auto server = BoardServer::start_view(web, std::move(assets_dir), view->names_, std::move(options.server));
  if (!server) return std::unexpected(server.error());
  view->server_ = std::move(*server);
  for (size_t i = 0; i < dirs.size(); ++i) {
    Hub* hub = view->server_->hub(i);
    view->follow_->logs[i].hub = hub;
    for (const tournament::Event& e : initial[i]) hub->on_event(e);
  }
  view->follow_->thread = std::thread([v = view.get()] { v->follow_loop(); });
  return view;
}

ViewServer::ViewServer() = default;

ViewServer::~ViewServer() {
  if (follow_ && follow_->thread.joinable()) {
    {
      std::lock_guard lock(follow_->mutex);
      follow_->stop = true;
    }
    follow_->wake.notify_all();
    follow_->thread.join();
  }
  server_.reset();
}

void ViewServer::follow_loop() {
  Follow& f = *follow_;
  std::unique_lock lock(f.mutex);
  while (!f.wake.wait_for(lock, f.interval, [&] { return f.stop; })) {
    lock.unlock();
    for (Follow::Log& log : f.logs) {
      for (int round = 0; round < kReadsPerRound; ++round) {
        tournament::FollowBatch batch = log.follower.poll();
        if (batch.missing && !log.was_missing)
          spdlog::warn("view: '{}' is gone; waiting for a new log there", log.follower.path().string());
        log.was_missing = batch.missing;
        if (batch.restarted) {
          spdlog::info("view: '{}' was replaced (a new run): reading it from its start",
                       log.follower.path().string());
          log.hub->post_reset();
        }
        for (const tournament::Event& e : batch.events) log.hub->on_event(e);
        if (batch.errors != log.last_errors)
          for (const std::string& error : batch.errors) spdlog::warn("view: skipped: {}", error);
        log.last_errors = std::move(batch.errors);
        if (!batch.more) break;
      }
    }
    lock.lock();
  }
}

}  // namespace arena::server
