// One replica of a fleet as every agent using it sees it: its in-flight count (the bounded load
// of prefix_affinity and least_loaded counts the requests of all agents, not one agent's), its
// health, and the figures /metrics shows. A replica that failed (connection refused, 5xx,
// timeout) is out for a backoff that doubles with each failure in a row (up to 60 s); then it is
// probed, GET /health and else GET <base>/models, each within a short timeout, and comes back
// only when one answers 200. Replicas are shared through a ReplicaRegistry keyed by URL.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agents/backend/backend.h"
#include "agents/backend/http_client.h"

namespace agents::backend {

// A replica's figures since the process started (for /metrics and the dashboard).
struct ReplicaStats {
  std::string url;
  bool healthy = true;
  std::string last_error;  // why it was last taken out ("" if never)
  int32_t in_flight = 0;
  int64_t requests = 0, errors = 0, times_down = 0;
  int64_t prompt_tokens = 0, cached_tokens = 0;  // as the replica reported them
  double ttft_seconds_sum = 0;                   // over the answered requests
  int64_t answered = 0;
};

class Replica : public std::enable_shared_from_this<Replica> {
 public:
  static constexpr std::chrono::milliseconds kMaxBackoff{60000};

  // `target` is where requests go (with its base path, "/v1"); probes wait at most `probe_timeout`.
  Replica(std::string url, HttpTarget target, std::chrono::milliseconds probe_timeout);
  ~Replica();
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  const std::string& url() const { return url_; }
  int32_t in_flight() const;
  bool healthy() const;
  // A request starts on this replica / has its result (counted into the figures).
  void begin();
  void end(const CompletionResult& result);
  // Takes the replica out for `why` (first backoff `backoff`, doubled per failure in a row) and
  // schedules its probe. A replica already out stays out; its backoff is not doubled again.
  void mark_down(const std::string& why, std::chrono::milliseconds backoff);
  ReplicaStats stats() const;

 private:
  void probe();
  void probe_models();
  void probe_done(bool ok, const std::string& why);

  const std::string url_;
  const HttpTarget target_;
  const std::chrono::milliseconds probe_timeout_;
  mutable std::mutex mutex_;  // guards everything below
  ReplicaStats stats_;
  std::chrono::milliseconds backoff_{0};  // the current one, while out
  std::unique_ptr<HttpClient> prober_;    // its own connection: probes never queue behind requests
};

// The replicas by URL. global() is the process's (never destroyed: probe threads may run past
// main's objects); tests make their own.
class ReplicaRegistry {
 public:
  static ReplicaRegistry& global();
  // The replica for `url` (http://host[:port][/path]), made on first use; an error for a bad URL.
  std::expected<std::shared_ptr<Replica>, std::string> get(const std::string& url,
                                                           std::chrono::milliseconds probe_timeout);
  std::vector<ReplicaStats> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Replica>> replicas_;
};

}  // namespace agents::backend
