// Conformance cases for `arena eval` and the conformance tests, in the format of
// ../shared/testdata/reference/cases-*.txt, one case per line:
//   logits ID ID ... |N        evaluate the ids from an empty cache in one pass (logits at every
//                              position), then N greedy tokens
//   tokenize TEXT              token ids of TEXT with add_special=true, special tokens parsed
//   tokenize_nospecial TEXT    the same with add_special=false
// TEXT is the rest of the line after one space, with `\n` standing for a newline. Results print as
// one JSON line each, in the schema of reference/*.jsonl (llama.cpp's answers).
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/api.h"

namespace engine {

struct EvalCase {
  enum class Kind { Logits, Tokenize };
  Kind kind = Kind::Logits;
  int line = 0;                 // 1-based line in the cases file
  std::vector<int32_t> tokens;  // logits: the input ids
  int32_t num_greedy = 0;       // logits: greedy tokens after the input
  std::string text;             // tokenize: the text, `\n` already turned into newlines
  bool add_special = true;      // tokenize: false for tokenize_nospecial
};

// The cases in `text` (the contents of `path`, named in errors as path:line: problem).
std::expected<std::vector<EvalCase>, Error> parse_eval_cases(const std::string& text,
                                                             const std::string& path);

// The cases in the file at `path`, or an Error (unreadable file, or path:line: problem).
std::expected<std::vector<EvalCase>, Error> read_eval_cases(const std::string& path);

// What a logits case produces.
struct LogitsResult {
  std::vector<int32_t> tokens;
  std::vector<std::vector<std::pair<int32_t, float>>> top;  // [position][k]: (id, logit), highest first
  std::vector<float> last_logits;                           // [vocab] at the last input position
  std::vector<int32_t> greedy;                              // argmax continuation
};

// Runs a logits case on `model` with an F32 KV cache: all tokens in one forward pass, then
// num_greedy single-token steps. Errors: bad token ids (see SequenceRunner::eval).
std::expected<LogitsResult, Error> run_logits_case(LanguageModel& model, std::span<const int32_t> tokens,
                                                   int32_t num_greedy, int top_k = 8);

// {"kind":"logits","tokens":[...],"top":[[[id,logit],...],...],"last_logits":[...],"greedy":[...]}
std::string logits_json(const LogitsResult& result);

// {"kind":"tokenize","add_special":...,"text":"...","ids":[...]}
std::string tokenize_json(const std::string& text, bool add_special, std::span<const int32_t> ids);

// `arena eval`: reads the cases at `cases_path`, loads the GGUF model at `model_path` (kernels on
// num_threads, 0 = all cores) and sends each case's JSON line to `out` as soon as it is computed;
// the first problem (file, or cases_path:line: what) ends the run as an Error.
std::expected<void, Error> run_eval_file(const std::string& model_path, const std::string& cases_path,
                                         int num_threads, const std::function<void(std::string_view)>& out);

}  // namespace engine
