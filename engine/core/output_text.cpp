// Stop-string search and stream hold-back for the output text.
#include "engine/core/output_text.h"

#include <algorithm>

namespace engine {

namespace {

// Bytes at the end of `s` that form an incomplete UTF-8 character (0 when none).
size_t incomplete_utf8_tail(std::string_view s) {
  for (size_t back = 1; back <= std::min<size_t>(3, s.size()); ++back) {
    const auto c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking for the lead byte
    const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

}  // namespace

OutputText::OutputText(std::vector<std::string> stop) : stop_(std::move(stop)) {
  std::erase_if(stop_, [](const std::string& s) { return s.empty(); });
}

bool OutputText::append(std::string_view piece) {
  const size_t old_size = text_.size();
  text_ += piece;
  size_t cut = std::string::npos;
  for (const auto& stop : stop_) {
    // Only a match that ends inside the new piece is new.
    const size_t from = old_size >= stop.size() ? old_size - stop.size() + 1 : 0;
    const size_t at = text_.find(stop, from);
    if (at != std::string::npos) cut = std::min(cut, at);
  }
  if (cut == std::string::npos) return false;
  text_.resize(std::max(cut, streamed_));  // text already streamed cannot be taken back
  return true;
}

std::string OutputText::take_ready() {
  size_t end = text_.size();
  // Hold back the longest tail that is a proper prefix of a stop string.
  size_t hold = 0;
  for (const auto& stop : stop_)
    for (size_t len = std::min(stop.size() - 1, text_.size()); len > hold; --len)
      if (std::string_view(text_).ends_with(std::string_view(stop).substr(0, len))) {
        hold = len;
        break;
      }
  end -= hold;
  end -= incomplete_utf8_tail(std::string_view(text_).substr(0, end));
  if (end <= streamed_) return {};
  std::string out = text_.substr(streamed_, end - streamed_);
  streamed_ = end;
  return out;
}

std::string OutputText::take_rest() {
  std::string out = text_.substr(std::min(streamed_, text_.size()));
  streamed_ = text_.size();
  return out;
}

}  // namespace engine
