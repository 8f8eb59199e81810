// MoveTicket: a one-shot result slot with a cancel hook and a ready callback.
#include "agents/agent.h"

#include <array>
#include <utility>

namespace agents {

namespace {
constexpr std::array kFailureNames = {"illegal", "unparseable",   "timeout",
                                      "crashed", "backend_error", "cancelled"};
}

const char* to_string(FailureKind kind) {
  return kFailureNames[static_cast<size_t>(kind)];
}

std::optional<FailureKind> parse_failure_kind(std::string_view text) {
  for (size_t i = 0; i < kFailureNames.size(); ++i)
    if (text == kFailureNames[i]) return static_cast<FailureKind>(i);
  return std::nullopt;
}

bool MoveTicket::ready() const {
  std::lock_guard lock(mutex_);
  return result_.has_value();
}

std::optional<MoveResult> MoveTicket::wait_for(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  if (!cv_.wait_for(lock, timeout, [&] { return result_.has_value(); })) return std::nullopt;
  return result_;
}

MoveResult MoveTicket::wait() const {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return result_.has_value(); });
  return *result_;
}

void MoveTicket::cancel() {
  std::function<void()> hook;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || result_) return;
    cancelled_ = true;
    hook = std::move(cancel_hook_);
  }
  if (hook) hook();
}

void MoveTicket::resolve(MoveResult result) {
  std::function<void()> on_ready;
  {
    std::lock_guard lock(mutex_);
    if (result_) return;
    result_ = std::move(result);
    on_ready = std::move(on_ready_);
    cancel_hook_ = nullptr;
  }
  cv_.notify_all();
  if (on_ready) on_ready();
}

void MoveTicket::set_cancel_hook(std::function<void()> hook) {
  {
    std::lock_guard lock(mutex_);
    if (result_) return;
    if (!cancelled_) {
      cancel_hook_ = std::move(hook);
      return;
    }
  }
  if (hook) hook();  // cancel() came before the hook: run it now
}

bool MoveTicket::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

void MoveTicket::set_on_ready(std::function<void()> on_ready) {
  bool call_now = false;
  {
    std::lock_guard lock(mutex_);
    if (result_)
      call_now = true;
    else
      on_ready_ = std::move(on_ready);
  }
  if (call_now && on_ready) on_ready();
}

std::shared_ptr<const LegalMoves> compute_legal_moves(const games::Game& game) {
  return std::make_shared<const LegalMoves>(LegalMoves{game.legal_moves(), game.legal_moves_human()});
}

std::shared_ptr<const LegalMoves> legal_moves(const MoveRequest& request) {
  return request.legal ? request.legal : compute_legal_moves(*request.game);
}

std::shared_ptr<MoveTicket> resolved_ticket(MoveResult result, const MoveRequest& request) {
  auto ticket = std::make_shared<MoveTicket>();
  ticket->set_on_ready(request.on_ready);
  ticket->resolve(std::move(result));
  return ticket;
}

}  // namespace agents
