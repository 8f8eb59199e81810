// Fuzz target: EPD perft-suite lines (games/epd.h). Properties: an accepted line has a FEN and
// at least one count, every depth is 1-20; reading the whole input as a file agrees with
// parsing its first line.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz/fuzz_check.h"
#include "games/epd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto text = fuzz::as_text(data, size);
  const auto line = text.substr(0, text.find('\n'));
  const auto entry = games::parse_epd_line(line);
  if (entry && *entry) {
    FUZZ_CHECK(!(*entry)->fen.empty());
    FUZZ_CHECK(!(*entry)->counts.empty());
    for (const auto& [depth, nodes] : (*entry)->counts) FUZZ_CHECK(depth >= 1 && depth <= 20);
  }
  std::istringstream in{std::string(text)};
  const auto file = games::read_epd(in, "fuzz.epd");
  if (file) {
    for (const auto& e : *file) FUZZ_CHECK(e.line >= 1 && !e.counts.empty());
    if (line.size() <= games::kMaxEpdLineBytes && entry && *entry && !file->empty() && (*file)[0].line == 1)
      FUZZ_CHECK((*file)[0].fen == (*entry)->fen && (*file)[0].counts == (*entry)->counts);
  } else {
    FUZZ_CHECK(file.error().starts_with("fuzz.epd"));
  }
  return 0;
}
