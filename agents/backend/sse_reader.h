// Server-sent events (text/event-stream), as OpenAI-compatible servers stream an answer: bytes go
// in as they arrive, and each line of every complete event (ended by a blank line) comes out as
// its field and value ("data", "{...}"; llama.cpp's server also sends "error"). Used by
// HttpClient for streamed answers.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace agents::backend {

// Called with each line of an event: the field before the first ':', and the value after it
// (without the one space that may follow the colon). A line without a colon is a field with an
// empty value; comment lines (": ...") are skipped.
using SseLine = std::function<void(std::string_view field, std::string_view value)>;

class SseReader {
 public:
  // Appends `bytes` and passes on the lines of every event they complete.
  void feed(std::string_view bytes, const SseLine& on_line);
  // The stream has ended: passes on the lines of a last event not followed by a blank line.
  void finish(const SseLine& on_line);

 private:
  // Passes on the lines of the event text `event` (without its blank line).
  static void take_event(std::string_view event, const SseLine& on_line);

  std::string pending_;  // bytes of the events not yet complete
};

}  // namespace agents::backend
