// Fuzz target: the YAML tournament config loader (arena/config/loader.h), file checks off (no
// model, prompt or engine needs to exist), two environment variables set for `${VAR}` paths.
// Properties: every error names the file and a line:column inside the text (every problem is
// reported as file:line:col) with a non-empty message; a config that loads is written as the
// resolved config (arena/config/resolved.h), which loads again to the same Config: no field
// differs, the hash is the same, and writing it again gives the same text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "arena/config/loader.h"
#include "arena/config/resolved.h"
#include "fuzz/fuzz_check.h"

namespace {

const char* const kSource = "/fuzz/configs/fuzz.yaml";

arena::config::LoadOptions options() {
  arena::config::LoadOptions o;
  o.get_env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME") return "/home/fuzz";
    if (name == "MODELS") return "models";
    return std::nullopt;
  };
  o.default_model_path = "/fuzz/models/default.gguf";
  o.check_files = false;
  return o;
}

// The number of lines of `text` (a mark may point one past the last character).
int32_t count_lines(std::string_view text) {
  int32_t n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto text = fuzz::as_text(data, size);
  static const arena::config::LoadOptions kOptions = options();
  const auto first = arena::config::load_config_from_string(text, kSource, kOptions);
  if (!first) {
    FUZZ_CHECK(!first.error().empty());
    const int32_t lines = count_lines(text);
    for (const auto& e : first.error()) {
      if (e.file != kSource || e.mark.line < 1 || e.mark.column < 1 || e.mark.line > lines + 1 ||
          e.message.empty())
        std::fprintf(stderr, "error without a place in the text: %s\n", e.to_string().c_str());
      FUZZ_CHECK(e.file == kSource);
      FUZZ_CHECK(e.mark.line >= 1 && e.mark.column >= 1 && e.mark.line <= lines + 1);
      FUZZ_CHECK(!e.message.empty());
    }
    return 0;
  }
  const std::string resolved = arena::config::resolved_yaml(*first);
  const auto second = arena::config::load_config_from_string(resolved, kSource, kOptions);
  if (!second) {
    std::fprintf(stderr, "the resolved config does not load:\n%s\n--- resolved:\n%s\n",
                 arena::config::format_diagnostics(second.error()).c_str(), resolved.c_str());
    FUZZ_CHECK(second.has_value());
  }
  const auto diffs = arena::config::diff_configs(*first, *second, /*results_only=*/false);
  if (!diffs.empty())
    std::fprintf(stderr, "the resolved config loads differently:\n%s\n--- resolved:\n%s\n",
                 arena::config::format_diff(diffs).c_str(), resolved.c_str());
  FUZZ_CHECK(diffs.empty());
  FUZZ_CHECK(arena::config::config_hash(*first) == arena::config::config_hash(*second));
  FUZZ_CHECK(arena::config::resolved_yaml(*second) == resolved);
  return 0;
}
