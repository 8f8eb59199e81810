// Following a growing event log (see log_follower.h).
#include "arena/tournament/log_follower.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace arena::tournament {

namespace {

constexpr size_t kHeadBytes = 256;

// Reads up to `size` bytes at `offset` (fewer at the end of the file); "" on an error.
std::string read_at(int fd, uint64_t offset, size_t size) {
  std::string out(size, '\0');
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, out.data() + got, size - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

// Closes the descriptor when the poll returns.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool LogFollower::same_start(int fd) const {
  return head_.empty() || read_at(fd, 0, head_.size()) == head_;
}

size_t LogFollower::take_lines(const std::string& text, FollowBatch& batch) {
  size_t start = 0;
  for (;;) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) return start;  // a torn last line waits for its end
    ++line_no_;
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto where = [&] { return fmt::format("{}:{}", path_.string(), line_no_); };
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("type")) {
      batch.errors.push_back(where() + ": not a JSON event");
      continue;
    }
    auto event = parse_event(j);
    if (event) {
      batch.events.push_back(std::move(*event));
    } else if (!(j["type"].is_string() && event.error().starts_with("unknown event type"))) {
      batch.errors.push_back(where() + ": " + event.error());
    }  // an event of a type this build does not know is skipped, as docs/events.md asks
  }
}

FollowBatch LogFollower::poll() {
  FollowBatch batch;
  Fd file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    batch.missing = errno == ENOENT;
    if (!batch.missing)
      batch.errors.push_back(fmt::format("cannot read '{}': {}", path_.string(), std::strerror(errno)));
    return batch;
  }
  struct stat st = {};
  if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    batch.errors.push_back(fmt::format("'{}' is not a readable file", path_.string()));
    return batch;
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  // A new run in the same folder: the file was cut below what was read, or begins differently
  // (a new file whose first event, tournament_start, has another time and seed).
  if (size < offset_ || !same_start(file.fd)) {
    batch.restarted = true;
    offset_ = 0;
    line_no_ = 0;
    head_.clear();
  }
  if (size == offset_) return batch;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(size - offset_, kMaxReadBytes));
  const std::string text = read_at(file.fd, offset_, want);
  const size_t used = take_lines(text, batch);
  if (used == 0 && text.size() == kMaxReadBytes) {
    batch.errors.push_back(
        fmt::format("{}:{}: a line longer than {} MiB", path_.string(), line_no_ + 1, kMaxReadBytes >> 20));
    return batch;  // read again at the next poll (the line may still end), never kept in memory
  }
  if (offset_ == 0 && used > 0) head_ = text.substr(0, std::min({used, text.find('\n') + 1, kHeadBytes}));
  offset_ += used;
  batch.more = offset_ < size && used > 0 && text.size() == want && want == kMaxReadBytes;
  return batch;
}

}  // namespace arena::tournament
