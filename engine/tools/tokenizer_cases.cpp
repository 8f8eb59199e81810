// Reading .inp test texts and writing .out id lines (llama.cpp's test-tokenizer-0 format).
#include "engine/tools/tokenizer_cases.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace engine {

std::vector<std::string> split_tokenizer_cases(std::string_view content) {
  constexpr std::string_view kSeparator = "\n__ggml_vocab_test__\n";
  std::vector<std::string> texts;
  size_t pos = 0;
  while (pos < content.size()) {
    const size_t next = content.find(kSeparator, pos);
    if (next == std::string_view::npos) {
      // A last text without its separator line: drop the final newline if any.
      std::string_view rest = content.substr(pos);
      if (rest.ends_with('\n')) rest.remove_suffix(1);
      texts.emplace_back(rest);
      break;
    }
    texts.emplace_back(content.substr(pos, next - pos));
    pos = next + kSeparator.size();
  }
  return texts;
}

std::expected<std::vector<std::string>, Error> read_tokenizer_cases(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(Error{fmt::format("cannot open tokenizer cases file '{}'", path)});
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::unexpected(Error{fmt::format("cannot read tokenizer cases file '{}'", path)});
  return split_tokenizer_cases(content.str());
}

std::string format_ids_line(std::span<const TokenId> ids) {
  std::string line;
  for (const TokenId id : ids) fmt::format_to(std::back_inserter(line), " {}", id);
  return line;
}

}  // namespace engine
