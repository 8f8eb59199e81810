// A request's output text, built piece by piece: finds stop strings (cutting the text before
// them) and says how much can be streamed now without sending half a UTF-8 character or the
// beginning of what may become a stop string.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace engine {

class OutputText {
 public:
  explicit OutputText(std::vector<std::string> stop = {});

  // Appends one token's piece; true when a stop string now appears (the text ends before it).
  bool append(std::string_view piece);
  // The text not streamed yet that is safe to stream now.
  std::string take_ready();
  // Everything not streamed yet (when the request finishes).
  std::string take_rest();
  // The whole text so far.
  const std::string& text() const { return text_; }

 private:
  std::vector<std::string> stop_;
  std::string text_;
  size_t streamed_ = 0;  // bytes of text_ already handed out
};

}  // namespace engine
