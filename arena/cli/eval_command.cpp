// `arena eval --model M --cases FILE [--threads T]`: runs conformance cases (logits and tokenize
// lines, see engine/model/eval_cases.h) on a GGUF model and prints one JSON line per case in the
// schema of ../shared/testdata/reference/*.jsonl. A bad model, cases file or line exits 1 with
// the file (and line) and the problem.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "arena/cli/command.h"
#include "engine/model/eval_cases.h"
#include "engine/model/model.h"

namespace arena::cli {

namespace {

struct EvalFlags {
  std::string model;
  std::string cases;
  int threads = 0;
};

int fail(const std::string& message) {
  fmt::print(stderr, "arena eval: error: {}\n", message);
  return 1;
}

int run_eval(const EvalFlags& f) {
  auto cases = engine::read_eval_cases(f.cases);
  if (!cases) return fail(cases.error().message);
  auto model = engine::Model::load(f.model, f.threads);
  if (!model) return fail(model.error().message);
  for (const auto& c : *cases) {
    std::string line;
    if (c.kind == engine::EvalCase::Kind::Tokenize) {
      const auto ids = (*model)->tokenizer().encode(c.text, c.add_special, /*parse_special=*/true);
      line = engine::tokenize_json(c.text, c.add_special, ids);
    } else {
      auto result = engine::run_logits_case((*model)->network(), c.tokens, c.num_greedy);
      if (!result) return fail(fmt::format("{}:{}: {}", f.cases, c.line, result.error().message));
      line = engine::logits_json(*result);
    }
    fmt::print("{}\n", line);
    std::fflush(stdout);
  }
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
