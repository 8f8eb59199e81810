// `arena eval --model M --cases FILE [--threads T]`: runs conformance cases (logits and tokenize
// lines, see engine/tools/eval_cases.h) on a GGUF model and prints one JSON line per case in the
// schema of ../shared/testdata/reference/*.jsonl. A bad model, cases file or line exits 1 with
// the file (and line) and the problem.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "arena/cli/command.h"
#include "engine/tools/eval_cases.h"

namespace arena::cli {

namespace {

struct EvalFlags {
  std::string model;
  std::string cases;
  int threads = 0;
};

int run_eval(const EvalFlags& f) {
  const auto done = engine::run_eval_file(f.model, f.cases, f.threads, [](std::string_view line) {
    fmt::print("{}\n", line);
    std::fflush(stdout);
  });
  if (!done) return fail("eval", done.error().message);
  return 0;
}

}  // namespace

void add_eval_command(CLI::App& root, Action& action) {
  auto* cmd =
      root.add_subcommand("eval", "Run conformance cases (logits, tokenize) on a GGUF model; JSON lines out");
  auto flags = std::make_shared<EvalFlags>();
  cmd->add_option("--model", flags->model, "GGUF model file")->required();
  cmd->add_option("--cases", flags->cases,
                  "Cases file: lines 'logits ID ... |N', 'tokenize TEXT', "
                  "'tokenize_nospecial TEXT'")
      ->required();
  cmd->add_option("--threads", flags->threads, "Compute threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([flags, &action] { action = [flags] { return run_eval(*flags); }; });
}

}  // namespace arena::cli
