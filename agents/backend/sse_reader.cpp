// SseReader: events end at "\n\n"; a "\r" before a line's "\n" is dropped (see sse_reader.h).
#include "agents/backend/sse_reader.h"

namespace agents::backend {

void SseReader::feed(std::string_view bytes, const SseLine& on_line) {
  pending_.append(bytes);
  size_t start = 0;
  for (size_t end; (end = pending_.find("\n\n", start)) != std::string::npos; start = end + 2)
    take_event(std::string_view(pending_).substr(start, end - start), on_line);
  pending_.erase(0, start);
}

void SseReader::finish(const SseLine& on_line) {
  take_event(pending_, on_line);
  pending_.clear();
}

void SseReader::take_event(std::string_view event, const SseLine& on_line) {
  while (!event.empty()) {
    const size_t newline = event.find('\n');
    std::string_view line = event.substr(0, newline);
    event = newline == std::string_view::npos ? std::string_view() : event.substr(newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == ':') continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      on_line(line, {});
      continue;
    }
    std::string_view value = line.substr(colon + 1);
    if (value.starts_with(' ')) value.remove_prefix(1);
    on_line(line.substr(0, colon), value);
  }
}

}  // namespace agents::backend
