// Request helpers, JSON responses and the cross-thread AsyncResponse of http_types.h.
#include "arena/server/http_types.h"

#include <nlohmann/json.hpp>

namespace arena::server {

std::string HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return value;
  return {};
}

std::optional<std::string> HttpRequest::query_param(std::string_view name) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) != name) continue;
    if (eq == std::string_view::npos) return std::string{};
    return percent_decode(pair.substr(eq + 1));
  }
  return std::nullopt;
}

HttpResponse json_error(int status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  // A message may quote request bytes (the path) that are not UTF-8: replaced, never thrown on.
  r.body = nlohmann::json{{"error", std::string(message)}}.dump(-1, ' ', false,
                                                                nlohmann::json::error_handler_t::replace);
  return r;
}

HttpResponse json_response(std::string body, int status) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

void AsyncResponse::wake(std::unique_lock<std::mutex>& lock) {
  std::function<void()> waker = waker_;
  if (!waker) return;
  ++waking_;
  lock.unlock();
  waker();
  waker = nullptr;  // the copy, and what it holds, goes before set_waker / cancel may return
  lock.lock();
  if (--waking_ == 0) woken_.notify_all();
}

void AsyncResponse::wait_no_wake(std::unique_lock<std::mutex>& lock) {
  woken_.wait(lock, [this] { return waking_ == 0; });
}

void AsyncResponse::respond(HttpResponse response) {
  std::unique_lock lock(mutex_);
  if (started_) return;
  started_ = true;
  ready_.whole = std::move(response);
  wake(lock);
}

void AsyncResponse::begin_stream(std::string content_type) {
  std::unique_lock lock(mutex_);
  if (started_) return;
  started_ = true;
  HttpResponse head;
  head.content_type = std::move(content_type);
  ready_.head = std::move(head);
  wake(lock);
}

void AsyncResponse::push(std::string data) {
  std::unique_lock lock(mutex_);
  if (cancelled_ || ready_.ended) return;
  ready_.chunks.push_back(std::move(data));
  wake(lock);
}

void AsyncResponse::end() {
  std::unique_lock lock(mutex_);
  if (ready_.ended) return;
  ready_.ended = true;
  wake(lock);
}

bool AsyncResponse::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

void AsyncResponse::set_on_cancel(std::function<void()> hook) {
  std::unique_lock lock(mutex_);
  if (cancelled_) {
    lock.unlock();
    if (hook) hook();
    return;
  }
  on_cancel_ = std::move(hook);
}

void AsyncResponse::set_waker(std::function<void()> waker) {
  std::unique_lock lock(mutex_);
  waker_ = nullptr;
  wait_no_wake(lock);
  waker_ = std::move(waker);
  const bool pending = started_ || ready_.ended || !ready_.chunks.empty();
  if (pending) wake(lock);
}

AsyncResponse::Ready AsyncResponse::drain() {
  std::lock_guard lock(mutex_);
  Ready out;
  out.whole = std::exchange(ready_.whole, std::nullopt);
  out.head = std::exchange(ready_.head, std::nullopt);
  out.chunks.swap(ready_.chunks);
  out.ended = ready_.ended;
  return out;
}

void AsyncResponse::cancel() {
  std::unique_lock lock(mutex_);
  if (cancelled_) return;
  cancelled_ = true;
  waker_ = nullptr;
  wait_no_wake(lock);
  std::function<void()> hook = std::exchange(on_cancel_, nullptr);
  lock.unlock();
  if (hook) hook();
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int hi = hex(text[i + 1]), lo = hex(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

}  // namespace arena::server
