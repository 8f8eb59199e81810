// FleetBackend: routing each request to a replica's OpenAI backend, failing over along the
// policy's order, waiting out a fleet with no usable replica (fleet.h).
#include "agents/backend/fleet.h"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <set>

#include "agents/backend/openai_backend.h"
#include "agents/backend/replica_ring.h"

namespace agents::backend {

std::string affinity_key(const CompletionRequest& request) {
  if (!request.affinity.empty()) return request.affinity;
  if (request.chat && !request.messages.empty()) {
    const auto& first = request.messages.front();
    return first.role + "\n" + first.content;
  }
  const std::string& p = request.prompt;
  return p.substr(0, std::min({p.find("\n\n"), p.size(), size_t{4096}}));
}

namespace {

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One request through its replicas.
struct FleetOp final : PendingCompletion {
  CompletionRequest request;
  std::function<void(CompletionResult)> on_done;
  uint64_t key = 0;
  Clock::time_point submitted;
  std::mutex mutex;         // guards everything below
  std::vector<bool> tried;  // this round
  int32_t round = 0;
  int32_t attempt = 0;  // counts the sends: only the latest one's pending is kept
  std::shared_ptr<PendingCompletion> pending;
  bool cancelled = false, done = false;

  void cancel() override {
    std::shared_ptr<PendingCompletion> p;
    {
      std::lock_guard lock(mutex);
      if (done) return;
      cancelled = true;
      p = pending;
    }
    if (p) p->cancel();
  }

  // Hands `result` over once.
  void finish(CompletionResult result) {
    {
      std::lock_guard lock(mutex);
      if (done) return;
      done = true;
      pending.reset();
    }
    on_done(std::move(result));
  }
};

class FleetBackend final : public LlmBackend, public std::enable_shared_from_this<FleetBackend> {
 public:
  FleetBackend(OpenAiBackendConfig config, std::vector<std::shared_ptr<Replica>> replicas,
               std::vector<std::shared_ptr<LlmBackend>> backends, HttpTarget timer_target)
      : config_(std::move(config)),
        replicas_(std::move(replicas)),
        backends_(std::move(backends)),
        ring_(urls(config_), weights(config_), config_.routing_seed),
        timer_(std::make_unique<HttpClient>(std::move(timer_target), 0)) {}

  ~FleetBackend() override {
    timer_.reset();     // drops the waits scheduled on it: those requests are completed below
    backends_.clear();  // completes the requests in flight (their callbacks find us gone)
    std::set<std::shared_ptr<FleetOp>> left;
    {
      std::lock_guard lock(mutex_);
      left.swap(live_);
    }
    for (const auto& op : left) op->finish(failure(*op, FailureKind::Cancelled, "the request was cancelled"));
  }

  std::shared_ptr<PendingCompletion> submit(CompletionRequest request,
                                            std::function<void(CompletionResult)> on_done) override {
    auto op = std::make_shared<FleetOp>();
    op->key = stable_hash(affinity_key(request), config_.routing_seed);
    op->request = std::move(request);
    op->on_done = [this_op = op.get(), done = std::move(on_done),
                   weak = weak_from_this()](CompletionResult r) {
      if (auto self = weak.lock()) self->forget(this_op);
      done(std::move(r));
    };
    op->submitted = Clock::now();
    op->tried.assign(replicas_.size(), false);
    {
      std::lock_guard lock(mutex_);
      live_.insert(op);
    }
    route(op);
    return op;
  }

  std::string describe() const override {
    std::string list;
    for (const auto& r : replicas_) list += (list.empty() ? "" : ", ") + r->url();
    return fmt::format("openai fleet ({}) {} model {}", to_string(config_.routing), list, config_.model);
  }

 private:
  static std::vector<std::string> urls(const OpenAiBackendConfig& c) {
    std::vector<std::string> out;
    for (const auto& e : c.endpoints) out.push_back(e.base_url);
    return out;
  }
  static std::vector<int32_t> weights(const OpenAiBackendConfig& c) {
    std::vector<int32_t> out;
    for (const auto& e : c.endpoints) out.push_back(e.weight);
    return out;
  }

  void forget(FleetOp* op) {
    std::lock_guard lock(mutex_);
    for (auto it = live_.begin(); it != live_.end(); ++it)
      if (it->get() == op) {
        live_.erase(it);
        return;
      }
  }

  CompletionResult failure(const FleetOp& op, FailureKind kind, std::string message) const {
    CompletionResult r;
    r.failure = MoveFailure{kind, std::move(message)};
    r.total_seconds = seconds_between(op.submitted, Clock::now());
    return r;
  }

  // "a: why; b: why" for the error of a fleet with no usable replica.
  std::string troubles() const {
    std::string out;
    for (const auto& r : replicas_) {
      const ReplicaStats s = r->stats();
      out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", s.url,
                         s.healthy ? "did not answer this request" : "out (" + s.last_error + ")");
    }
    return out;
  }

  // Sends `op` to the policy's choice among the replicas not yet tried this round, or waits.
  void route(const std::shared_ptr<FleetOp>& op) {
    std::vector<ReplicaView> views(replicas_.size());
    bool cancelled = false;
    int32_t attempt = 0;
    {
      std::lock_guard lock(op->mutex);
      if (op->done) return;
      cancelled = op->cancelled;
      attempt = ++op->attempt;
      for (size_t i = 0; i < replicas_.size(); ++i)
        views[i] = {replicas_[i]->in_flight(), config_.endpoints[i].weight,
                    !op->tried[i] && replicas_[i]->healthy()};
    }
    if (cancelled) return op->finish(failure(*op, FailureKind::Cancelled, "the request was cancelled"));
    const auto choice = choose_replica(config_.routing, ring_, views, op->key, turn_++);
    if (!choice) return wait_or_fail(op);
    const size_t i = *choice;
    const std::shared_ptr<Replica> replica = replicas_[i];
    replica->begin();
    const double offset = seconds_between(op->submitted, Clock::now());
    auto pending = backends_[i]->submit(
        op->request, [weak = weak_from_this(), op, replica, i, offset](CompletionResult r) {
          replica->end(r);
          r.replica = replica->url();
          r.queue_seconds += offset;
          r.ttft_seconds += offset;
          r.total_seconds += offset;
          auto self = weak.lock();
          if (!self || r.replica_fault == ReplicaFault::None || !r.failure) return op->finish(std::move(r));
          self->on_fault(op, i, std::move(r));
        });
    // The answer may have come already (on the client's thread, or inline), and with it a later
    // send or the end: then this send's pending is not kept, or it would hold `op` through its
    // callback for good.
    bool cancel_now = false;
    {
      std::lock_guard lock(op->mutex);
      if (op->done || op->attempt != attempt) return;
      op->pending = pending;
      cancel_now = op->cancelled;
    }
    if (cancel_now) pending->cancel();
  }

  // Replica `i` failed `op` through no fault of the request: out it goes (unless only busy),
  // and the request moves on.
  void on_fault(const std::shared_ptr<FleetOp>& op, size_t i, CompletionResult r) {
    if (r.replica_fault == ReplicaFault::Down) replicas_[i]->mark_down(r.failure->message, config_.backoff);
    {
      std::lock_guard lock(op->mutex);
      op->tried[i] = true;
      op->pending.reset();
    }
    route(op);
  }

  // No replica is usable this round: a new round after the backoff, or the fleet's error.
  void wait_or_fail(const std::shared_ptr<FleetOp>& op) {
    int32_t round = 0;
    {
      std::lock_guard lock(op->mutex);
      round = op->round++;
      op->tried.assign(replicas_.size(), false);
    }
    if (round >= config_.max_retries)
      return op->finish(failure(
          *op, FailureKind::BackendError,
          fmt::format("no healthy replica in the fleet after {} rounds ({})", round + 1, troubles())));
    const auto delay =
        std::max(config_.backoff, std::chrono::milliseconds(1)) * (int64_t{1} << std::min(round, 20));
    timer_->post_after(delay, [weak = weak_from_this(), op] {
      if (auto self = weak.lock()) self->route(op);
    });
  }

  OpenAiBackendConfig config_;
  std::vector<std::shared_ptr<Replica>> replicas_;
  std::vector<std::shared_ptr<LlmBackend>> backends_;
  ReplicaRing ring_;
  std::atomic<uint64_t> turn_{0};
  std::mutex mutex_;  // guards live_
  std::set<std::shared_ptr<FleetOp>> live_;
  std::unique_ptr<HttpClient> timer_;  // its thread runs the waits of wait_or_fail; sends nothing
};

}  // namespace

std::expected<std::shared_ptr<LlmBackend>, std::string> make_fleet_backend(
    const OpenAiBackendConfig& config, const std::vector<std::optional<std::string>>& keys,
    ReplicaRegistry& registry) {
  if (config.endpoints.empty()) return std::unexpected(std::string("openai fleet: no endpoints listed"));
  if (keys.size() != config.endpoints.size())
    return std::unexpected(std::string("openai fleet: one key (or none) per endpoint is needed"));
  std::vector<std::shared_ptr<Replica>> replicas;
  std::vector<std::shared_ptr<LlmBackend>> backends;
  std::set<std::string> seen;
  const auto probe_timeout = std::min(config.timeout, std::chrono::milliseconds(5000));
  for (size_t i = 0; i < config.endpoints.size(); ++i) {
    const OpenAiReplica& e = config.endpoints[i];
    if (!seen.insert(e.base_url).second)
      return std::unexpected(fmt::format("openai fleet: endpoint {} is listed twice", e.base_url));
    if (e.weight < 1)
      return std::unexpected(
          fmt::format("openai fleet: endpoint {} has weight {} (at least 1)", e.base_url, e.weight));
    OpenAiBackendConfig one = config;
    one.base_url = e.base_url;
    one.endpoints.clear();
    one.max_retries = 0;  // the fleet moves a failed request on instead of waiting on one replica
    auto backend = make_openai_backend(one, keys[i]);
    if (!backend) return std::unexpected(backend.error());
    auto replica = registry.get(e.base_url, probe_timeout);
    if (!replica) return std::unexpected(replica.error());
    backends.push_back(std::move(*backend));
    replicas.push_back(std::move(*replica));
  }
  auto timer_target = parse_http_url(config.endpoints.front().base_url);
  return std::make_shared<FleetBackend>(config, std::move(replicas), std::move(backends),
                                        std::move(*timer_target));
}

}  // namespace agents::backend
