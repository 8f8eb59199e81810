// The append-only event log (see event_log.h).
#include "arena/tournament/event_log.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace arena::tournament {

EventLog::EventLog(EventLog&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      next_seq_(other.next_seq_),
      torn_(other.torn_),
      path_(std::move(other.path_)) {}

EventLog& EventLog::operator=(EventLog&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    next_seq_ = other.next_seq_;
    torn_ = other.torn_;
    path_ = std::move(other.path_);
  }
  return *this;
}

EventLog::~EventLog() {
  if (fd_ >= 0) {
    ::fsync(fd_);
    ::close(fd_);
  }
}

std::expected<LogContents, std::string> read_event_log(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(fmt::format("cannot read the event log '{}'", path.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  LogContents out;
  size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    ++line_no;
    const size_t end = text.find('\n', start);
    const bool complete = end != std::string::npos;
    const std::string line = text.substr(start, complete ? end - start : std::string::npos);
    const size_t next = complete ? end + 1 : text.size();
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      if (complete) out.valid_bytes = next;
      start = next;
      continue;
    }
    auto event = nlohmann::json::parse(line, nullptr, false);
    const bool ok = !event.is_discarded() && event.is_object() && event.contains("type");
    if (!ok || !complete) {
      // A torn write can only be the last line: everything after it must be empty.
      if (next >= text.size() || text.find_first_not_of(" \t\r\n", next) == std::string::npos) {
        out.truncated = true;
        return out;
      }
      return std::unexpected(
          fmt::format("{}:{}: not a JSON event (the log is damaged before its end)", path.string(), line_no));
    }
    out.events.push_back(std::move(event));
    out.valid_bytes = next;
    start = next;
  }
  return out;
}

std::expected<EventLog, std::string> EventLog::open(const std::filesystem::path& path, bool resume,
                                                    std::vector<Event>* existing) {
  EventLog log;
  log.path_ = path;
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (resume && exists) {
    auto contents = read_event_log(path);
    if (!contents) return std::unexpected(contents.error());
    if (contents->truncated) std::filesystem::resize_file(path, contents->valid_bytes, ec);
    if (ec)
      return std::unexpected(
          fmt::format("cannot cut the torn last line of '{}': {}", path.string(), ec.message()));
    for (size_t i = 0; i < contents->events.size(); ++i) {
      const nlohmann::json& line = contents->events[i];
      if (line.contains("seq") && line["seq"].is_number_integer()) {
        const auto seq = line["seq"].get<int64_t>();
        if (seq < std::numeric_limits<int64_t>::max()) log.next_seq_ = std::max(log.next_seq_, seq + 1);
      }
      auto event = parse_event(line);
      if (!event && line.value("type", nlohmann::json()).is_string() &&
          event.error().starts_with("unknown event type"))
        continue;  // a reader ignores what it does not know
      if (!event)
        return std::unexpected(fmt::format("{}: event {}: {}", path.string(), i + 1, event.error()));
      if (existing) existing->push_back(std::move(*event));
    }
  } else if (exists && !resume) {
    return std::unexpected(
        fmt::format("'{}' already exists: resume the run, or choose another output folder", path.string()));
  }
  log.fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log.fd_ < 0)
    return std::unexpected(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  return log;
}

std::expected<void, std::string> EventLog::append(Event& event) {
  if (torn_)
    return std::unexpected(
        fmt::format("'{}' ends in a torn line that could not be cut off; resume the run", path_.string()));
  event.seq = next_seq_;
  std::string line = nlohmann::json(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  // Where the line starts: a write that fails half way (a full disk, EFBIG) is cut back to here,
  // so the log never holds a half line that a later line would follow (a damaged log).
  struct stat st {};
  const off_t start = ::fstat(fd_, &st) == 0 ? st.st_size : -1;
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      if (done > 0) torn_ = start < 0 || ::ftruncate(fd_, start) != 0;
      return std::unexpected(fmt::format("writing '{}' failed: {}", path_.string(), why));
    }
    done += size_t(n);
  }
  ++next_seq_;
  return {};
}

void EventLog::sync() {
  if (fd_ >= 0) ::fsync(fd_);
}

}  // namespace arena::tournament
