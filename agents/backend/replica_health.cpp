// Replica health: counting, taking out with doubling backoff, probing back in (replica_health.h).
#include "agents/backend/replica_health.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace agents::backend {

Replica::Replica(std::string url, HttpTarget target, std::chrono::milliseconds probe_timeout)
    : url_(std::move(url)), target_(std::move(target)), probe_timeout_(probe_timeout) {
  stats_.url = url_;
}

Replica::~Replica() = default;  // prober_ first: it cancels a probe in flight (callbacks hold us weakly)

int32_t Replica::in_flight() const {
  std::lock_guard lock(mutex_);
  return stats_.in_flight;
}

bool Replica::healthy() const {
  std::lock_guard lock(mutex_);
  return stats_.healthy;
}

void Replica::begin() {
  std::lock_guard lock(mutex_);
  ++stats_.in_flight;
  ++stats_.requests;
}

void Replica::end(const CompletionResult& result) {
  std::lock_guard lock(mutex_);
  --stats_.in_flight;
  if (result.failure) {
    if (result.failure->kind != FailureKind::Cancelled) ++stats_.errors;
    return;
  }
  ++stats_.answered;
  stats_.ttft_seconds_sum += result.ttft_seconds;
  stats_.prompt_tokens += result.num_prompt_tokens;
  stats_.cached_tokens += result.num_cached_tokens;
}

void Replica::mark_down(const std::string& why, std::chrono::milliseconds backoff) {
  std::chrono::milliseconds delay;
  {
    std::lock_guard lock(mutex_);
    if (!stats_.healthy) return;  // already out, its probe scheduled
    stats_.healthy = false;
    stats_.last_error = why;
    ++stats_.times_down;
    backoff_ = std::clamp(backoff, std::chrono::milliseconds(1), kMaxBackoff);
    delay = backoff_;
    if (!prober_) {
      HttpTarget root = target_;
      root.base_path.clear();  // /health lives at the server's root (vLLM, SGLang, llama-server)
      prober_ = std::make_unique<HttpClient>(std::move(root), 1);
    }
    prober_->post_after(delay, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->probe();
    });
  }
  spdlog::warn("replica {} taken out of its fleet: {}; probing it in {} ms", url_, why, delay.count());
}

void Replica::probe() {
  std::lock_guard lock(mutex_);
  HttpRequest req;
  req.method = "GET";
  req.path = "/health";
  req.timeout = probe_timeout_;
  prober_->send(std::move(req), [weak = weak_from_this()](std::expected<HttpResponse, HttpError> r) {
    auto self = weak.lock();
    if (!self) return;
    if (r && r->status == 200) return self->probe_done(true, "");
    self->probe_models();  // no /health (Ollama, some proxies): the OpenAI model list instead
  });
}

void Replica::probe_models() {
  std::lock_guard lock(mutex_);
  HttpRequest req;
  req.method = "GET";
  req.path = target_.base_path + "/models";
  req.timeout = probe_timeout_;
  prober_->send(std::move(req), [weak = weak_from_this()](std::expected<HttpResponse, HttpError> r) {
    auto self = weak.lock();
    if (!self) return;
    if (r && r->status == 200) return self->probe_done(true, "");
    self->probe_done(false, r ? fmt::format("the probe got {}", r->status) : r.error().message);
  });
}

void Replica::probe_done(bool ok, const std::string& why) {
  std::lock_guard lock(mutex_);
  if (ok) {
    stats_.healthy = true;
    backoff_ = std::chrono::milliseconds(0);
    spdlog::info("replica {} answered its probe: back in its fleet", url_);
    return;
  }
  backoff_ = std::min(backoff_ * 2, kMaxBackoff);
  stats_.last_error = why;
  prober_->post_after(backoff_, [weak = weak_from_this()] {
    if (auto self = weak.lock()) self->probe();
  });
}

ReplicaStats Replica::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

ReplicaRegistry& ReplicaRegistry::global() {
  static auto* registry = new ReplicaRegistry;  // never destroyed (see the header)
  return *registry;
}

std::expected<std::shared_ptr<Replica>, std::string> ReplicaRegistry::get(
    const std::string& url, std::chrono::milliseconds probe_timeout) {
  auto target = parse_http_url(url);
  if (!target) return std::unexpected(target.error());
  std::lock_guard lock(mutex_);
  auto& slot = replicas_[url];
  if (!slot) slot = std::make_shared<Replica>(url, std::move(*target), probe_timeout);
  return slot;
}

std::vector<ReplicaStats> ReplicaRegistry::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<ReplicaStats> out;
  for (const auto& [url, replica] : replicas_) out.push_back(replica->stats());
  return out;
}

}  // namespace agents::backend
