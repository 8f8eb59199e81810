// The live progress line (see status_line.h).
#include "arena/tournament/status_line.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace arena::tournament {

std::string format_status(const StatusInfo& info) {
  constexpr int kBar = 20;
  const int filled = info.total > 0 ? int(int64_t(kBar) * info.done / info.total) : 0;
  std::string bar = std::string(size_t(filled), '#') + std::string(size_t(kBar - filled), '.');
  std::string out =
      fmt::format("[{}] {}/{} games, {} playing | {:.1f} moves/s", bar, info.done, info.total, info.in_flight,
                  info.elapsed_s > 0 ? double(info.moves) / info.elapsed_s : 0.0);
  for (const auto& e : info.engines)
    out += fmt::format(" | {}: q {} run {} batch {:.1f} ttft {:.2f}/{:.2f}s hit {:.0f}%", e.model, e.queue,
                       e.running, e.batch, e.ttft_p50, e.ttft_p99, e.prefix_hit_rate * 100);
  if (info.deadline_misses > 0) out += fmt::format(" | {} late", info.deadline_misses);
  if (info.done_this_run > 0 && info.done < info.total) {
    const double eta = info.elapsed_s / info.done_this_run * (info.total - info.done);
    out += fmt::format(" | ETA {}:{:02}:{:02}", int64_t(eta) / 3600, (int64_t(eta) / 60) % 60,
                       int64_t(eta) % 60);
  }
  return out;
}

StatusLine::StatusLine(bool quiet, bool tty, std::chrono::milliseconds log_period)
    : quiet_(quiet), tty_(tty), period_(tty ? std::chrono::milliseconds(250) : log_period) {}

StatusLine::~StatusLine() {
  finish();
}

void StatusLine::update(const StatusInfo& info, bool force) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && drawn_ && now - last_ < period_) return;
  last_ = now;
  std::string text = format_status(info);
  if (tty_) {
    // A line longer than the terminal would wrap, and \r would then redraw only its last part.
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && text.size() >= ws.ws_col) {
      text.resize(size_t(ws.ws_col) - 1);
      // Never cut a UTF-8 sequence in half.
      while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0x80)) {
        const bool lead = (static_cast<unsigned char>(text.back()) & 0xC0) == 0xC0;
        text.pop_back();
        if (lead) break;
      }
    }
    std::fputs(fmt::format("\r\x1b[2K{}", text).c_str(), stdout);
    std::fflush(stdout);
  } else {
    spdlog::info("{}", text);
  }
  drawn_ = true;
}

void StatusLine::finish() {
  if (tty_ && drawn_ && !quiet_) {
    std::fputs("\n", stdout);
    std::fflush(stdout);
  }
  drawn_ = false;
}

}  // namespace arena::tournament
