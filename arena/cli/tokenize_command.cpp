// `arena tokenize --model M [--add-special] [--parse-special] TEXT` prints the token ids of TEXT
// (space separated, one line); `arena tokenize --model M --cases FILE.inp` prints one line per
// test text of a llama.cpp tokenizer test file, each id preceded by a space (the .out format).
// Only the GGUF's vocabulary is read, so vocabulary-only files work too. A bad model or cases
// file exits 1 with the file and the problem.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "arena/cli/command.h"
#include "engine/api.h"
#include "engine/tools/tokenizer_cases.h"

namespace arena::cli {

namespace {

struct TokenizeFlags {
  std::string model;
  std::string cases;
  std::optional<std::string> text;
  bool add_special = false;
  bool parse_special = false;
};

int fail(const std::string& message) {
  fmt::print(stderr, "arena tokenize: error: {}\n", message);
  return 1;
}

int run_tokenize(const TokenizeFlags& f) {
  if (f.cases.empty() == !f.text.has_value()) {
    fmt::print(stderr, "arena tokenize: error: give either TEXT or --cases FILE\n");
    return kUsageExitCode;
  }
  auto tokenizer = engine::Tokenizer::open(f.model);
  if (!tokenizer) return fail(tokenizer.error().message);

  if (f.text) {
    const auto ids = (*tokenizer)->encode(*f.text, f.add_special, f.parse_special);
    const std::string line = engine::format_ids_line(ids);
    fmt::print("{}\n", line.empty() ? line : line.substr(1));
    return 0;
  }
  auto texts = engine::read_tokenizer_cases(f.cases);
  if (!texts) return fail(texts.error().message);
  std::string out;
  for (const std::string& text : *texts)
    out += engine::format_ids_line((*tokenizer)->encode(text, f.add_special, f.parse_special)) + "\n";
  fmt::print("{}", out);
  return 0;
}

}  // namespace

void add_tokenize_command(CLI::App& root, Action& action) {
  auto* cmd =
      root.add_subcommand("tokenize", "Print the token ids of a text, or of every text of a .inp file");
  auto flags = std::make_shared<TokenizeFlags>();
  cmd->add_option("--model", flags->model, "GGUF file (a model or a vocabulary-only file)")->required();
  cmd->add_flag("--add-special", flags->add_special, "Add BOS/EOS as the vocabulary says");
  cmd->add_flag("--parse-special", flags->parse_special,
                "Turn special-token text (e.g. <|im_start|>) into ids");
  auto* cases = cmd->add_option("--cases", flags->cases,
                                "llama.cpp tokenizer test file (.inp): one output line per text, each id "
                                "preceded by a space");
  cmd->add_option("text", flags->text, "Text to tokenize")->excludes(cases);
  cmd->callback([flags, &action] { action = [flags] { return run_tokenize(*flags); }; });
}

}  // namespace arena::cli
