// MoveTicket: a one-shot result slot with a cancel hook and a ready callback; failure kinds by name.
#include "agents/agent.h"

#include <utility>

#include "base/enum_names.h"

namespace agents {

namespace {
constexpr base::EnumTable<FailureKind, 6> kFailureNames{{{FailureKind::Illegal, "illegal"},
                                                         {FailureKind::Unparseable, "unparseable"},
                                                         {FailureKind::Timeout, "timeout"},
                                                         {FailureKind::Crashed, "crashed"},
                                                         {FailureKind::BackendError, "backend_error"},
                                                         {FailureKind::Cancelled, "cancelled"}}};
}  // namespace

const char* to_string(FailureKind kind) {
  return base::enum_name(kFailureNames, kind);
}

std::optional<FailureKind> parse_failure_kind(std::string_view text) {
  return base::enum_value(kFailureNames, text);
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
