// Parsing conformance cases, running logits cases, and writing results as JSON lines.
#include "engine/tools/eval_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

#include "base/strings.h"
#include "engine/model/model.h"
#include "engine/model/sequence_runner.h"

namespace engine {

namespace {

// Parses a non-negative decimal integer that fills `s` exactly.
std::optional<int32_t> parse_int(std::string_view s) {
  int32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::string unescape_newlines(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Parses "ID ID ... |N" into a case; returns the problem on failure.
std::optional<std::string> parse_logits(std::string_view rest, EvalCase& c) {
  const size_t bar = rest.rfind('|');
  if (bar == std::string_view::npos) return "expected 'logits ID ID ... |N'";
  const auto n = parse_int(base::trim(rest.substr(bar + 1)));
  if (!n) return fmt::format("bad greedy count '{}' after '|'", base::trim(rest.substr(bar + 1)));
  c.num_greedy = *n;
  std::string_view ids = rest.substr(0, bar);
  while (!(ids = base::trim(ids)).empty()) {
    const size_t sp = std::min(ids.find(' '), ids.size());
    const auto id = parse_int(ids.substr(0, sp));
    if (!id) return fmt::format("bad token id '{}'", ids.substr(0, sp));
    c.tokens.push_back(*id);
    ids.remove_prefix(sp);
  }
  if (c.tokens.empty()) return "a logits case needs at least one token id";
  return std::nullopt;
}

std::string json_escape(std::string_view s) {
  std::string out;
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20)
          out += fmt::format("\\u{:04x}", u);
        else
          out += ch;
    }
  }
  return out;
}

template <typename T>
std::string json_array(std::span<const T> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    if constexpr (std::is_floating_point_v<T>)
      out += fmt::format("{:g}", values[i]);
    else
      out += fmt::format("{}", values[i]);
  }
  return out + "]";
}

}  // namespace

std::expected<std::vector<EvalCase>, Error> parse_eval_cases(const std::string& text,
                                                             const std::string& path) {
  std::vector<EvalCase> cases;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (base::trim(line).empty() || line.front() == '#') continue;
    const std::string_view view(line);
    const size_t sp = std::min(view.find(' '), view.size());
    const std::string_view kind = view.substr(0, sp);
    const std::string_view rest = sp < view.size() ? view.substr(sp + 1) : std::string_view{};
    EvalCase c;
    c.line = number;
    auto fail = [&](const std::string& what) {
      return std::unexpected(Error{fmt::format("{}:{}: {}", path, number, what)});
    };
    if (kind == "logits") {
      c.kind = EvalCase::Kind::Logits;
      if (auto problem = parse_logits(rest, c)) return fail(*problem);
    } else if (kind == "tokenize" || kind == "tokenize_nospecial") {
      c.kind = EvalCase::Kind::Tokenize;
      c.add_special = kind == "tokenize";
      c.text = unescape_newlines(rest);
    } else {
      return fail(
          fmt::format("unknown case kind '{}' (expected logits, tokenize or tokenize_nospecial)", kind));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::expected<std::vector<EvalCase>, Error> read_eval_cases(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(Error{fmt::format("{}: cannot open cases file", path)});
  std::ostringstream text;
  text << in.rdbuf();
  return parse_eval_cases(text.str(), path);
}

std::expected<LogitsResult, Error> run_logits_case(LanguageModel& model, std::span<const int32_t> tokens,
                                                   int32_t num_greedy, int top_k) {
  const int32_t vocab = model.shape().vocab_size;
  // Refused before the KV cache is allocated for it: a case longer than the context (the last
  // greedy token is never fed back, so it takes no position).
  const int64_t positions = static_cast<int64_t>(tokens.size()) + std::max(num_greedy - 1, 0);
  const int32_t context = model.shape().context_length;
  if (context > 0 && positions > context)
    return std::unexpected(Error{fmt::format(
        "{} tokens and {} greedy steps need {} positions, more than the model's context of {} tokens",
        tokens.size(), num_greedy, positions, context)});
  SequenceRunner runner(model, static_cast<int32_t>(positions) + 1, KvDtype::F32);
  auto logits = runner.eval(tokens, /*all_logits=*/true);
  if (!logits) return std::unexpected(logits.error());

  LogitsResult r;
  r.tokens.assign(tokens.begin(), tokens.end());
  const int k = std::min(top_k, vocab);
  std::vector<int32_t> order(static_cast<size_t>(vocab));
  for (size_t p = 0; p < tokens.size(); ++p) {
    const std::span<const float> row(logits->data() + p * static_cast<size_t>(vocab),
                                     static_cast<size_t>(vocab));
    for (int32_t i = 0; i < vocab; ++i) order[static_cast<size_t>(i)] = i;
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int32_t a, int32_t b) {
      return row[static_cast<size_t>(a)] > row[static_cast<size_t>(b)] ||
             (row[static_cast<size_t>(a)] == row[static_cast<size_t>(b)] && a < b);
    });
    auto& top = r.top.emplace_back();
    for (int i = 0; i < k; ++i)
      top.emplace_back(order[static_cast<size_t>(i)],
                       row[static_cast<size_t>(order[static_cast<size_t>(i)])]);
  }
  r.last_logits.assign(logits->end() - vocab, logits->end());

  // Greedy continuation: the argmax, fed back one token at a time.
  std::vector<float> last = r.last_logits;
  for (int32_t i = 0; i < num_greedy; ++i) {
    const int32_t next = argmax(last);
    r.greedy.push_back(next);
    if (i + 1 == num_greedy) break;
    auto step = runner.eval(std::span(&next, 1), /*all_logits=*/false);
    if (!step) return std::unexpected(step.error());
    last = std::move(*step);
  }
  return r;
}

std::string logits_json(const LogitsResult& r) {
  std::string top = "[";
  for (size_t p = 0; p < r.top.size(); ++p) {
    if (p) top += ',';
    top += '[';
    for (size_t i = 0; i < r.top[p].size(); ++i)
      top += fmt::format("{}[{},{:g}]", i ? "," : "", r.top[p][i].first, r.top[p][i].second);
    top += ']';
  }
  top += ']';
  return fmt::format(R"({{"kind":"logits","tokens":{},"top":{},"last_logits":{},"greedy":{}}})",
                     json_array<int32_t>(r.tokens), top, json_array<float>(r.last_logits),
                     json_array<int32_t>(r.greedy));
}

std::string tokenize_json(const std::string& text, bool add_special, std::span<const int32_t> ids) {
  return fmt::format(R"({{"kind":"tokenize","add_special":{},"text":"{}","ids":{}}})",
                     add_special ? "true" : "false", json_escape(text), json_array<int32_t>(ids));
}

std::expected<void, Error> run_eval_file(const std::string& model_path, const std::string& cases_path,
                                         int num_threads, const std::function<void(std::string_view)>& out) {
  auto cases = read_eval_cases(cases_path);
  if (!cases) return std::unexpected(cases.error());
  auto model = Model::load(model_path, num_threads);
  if (!model) return std::unexpected(model.error());
  for (const auto& c : *cases) {
    if (c.kind == EvalCase::Kind::Tokenize) {
      const auto ids = (*model)->tokenizer().encode(c.text, c.add_special, /*parse_special=*/true);
      out(tokenize_json(c.text, c.add_special, ids));
      continue;
    }
    auto result = run_logits_case((*model)->network(), c.tokens, c.num_greedy);
    if (!result)
      return std::unexpected(Error{fmt::format("{}:{}: {}", cases_path, c.line, result.error().message)});
    out(logits_json(*result));
  }
  return {};
}

}  // namespace engine
