// Fuzz target: chat template rendering. The input is split at NUL bytes: the first part is a
// template spec (a family name or a format string with {system}/{user}/... markers) or, when it
// starts with "{%" or "{{", a Jinja template to detect the family of; the remaining parts are
// message contents (roles cycle system, user, assistant, tool). Properties: rendering never
// fails once a template is accepted, every message's content appears in the prompt for the
// format-string templates, and the output is bounded by the input size.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/tokenizer/chat_template.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto text = fuzz::as_text(data, size);
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find('\0', start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  const std::string_view spec = parts[0];
  const bool jinja = spec.starts_with("{%") || spec.starts_with("{{");
  auto chat = jinja ? engine::ChatTemplate::detect(spec, "<s>", "</s>")
                    : engine::ChatTemplate::from_spec(spec, "<s>", "</s>");
  if (!chat) {
    FUZZ_CHECK(!chat.error().message.empty());
    return 0;
  }
  static const char* kRoles[] = {"system", "user", "assistant", "tool"};
  std::vector<engine::ChatMessage> messages;
  for (size_t i = 1; i < parts.size(); ++i) messages.push_back({kRoles[(i - 1) % 4], std::string(parts[i])});
  for (bool generation : {true, false}) {
    for (bool thinking : {true, false}) {
      const std::string prompt = chat->apply(messages, {generation, thinking});
      // Each message is written at most a few times (e.g. a system prompt folded into a turn).
      FUZZ_CHECK(prompt.size() <= 4 * (size + 1) * (spec.size() + 64));
      if (chat->name() == "custom")
        for (const auto& m : messages)
          if (m.role == "user") FUZZ_CHECK(prompt.find(m.content) != std::string::npos);
    }
  }
  return 0;
}
