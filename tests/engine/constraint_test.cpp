// Constrained decoding: the allowed-completions trie, which tokens each state allows (every
// token sequence that spells a prefix, EOS only at a complete string), forced text for
// jump-forward, spelling forced text with tokens, the token budget, and end-to-end through the
// EngineCore with random sampling: the output is always one of the allowed strings, even when
// max_tokens leaves no token to spare.
#include "engine/sampling/constraint.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/core/engine_core.h"
#include "tests/engine/serve_fakes.h"
#include "tests/engine/serve_harness.h"

using namespace engine;
using arena::test::FakeCore;
using arena::test::FakeTokenizer;
using arena::test::run_until_done;

namespace {

std::set<std::string> pieces_of(const std::vector<TokenId>& ids, const PieceIndex& pieces) {
  std::set<std::string> out;
  for (auto id : ids) out.insert(id == FakeTokenizer::kEos ? "<eos>" : pieces.piece(id));
  return out;
}

Constraint make(std::vector<std::string> allowed) {
  return Constraint(*CompletionTrie::build(allowed));
}

}  // namespace

TEST_CASE("CompletionTrie rejects an empty set and empty strings", "[engine]") {
  CHECK_FALSE(CompletionTrie::build(std::vector<std::string>{}));
  auto bad = CompletionTrie::build(std::vector<std::string>{"e2e4", ""});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("empty") != std::string::npos);
}

TEST_CASE("Constraint allows every token that keeps the output a prefix of an allowed string", "[engine]") {
  FakeTokenizer tok;
  PieceIndex pieces(tok, tok.vocab_size());
  auto c = make({"e2e3", "e2e4", "e2e4q"});
  CHECK(pieces_of(c.allowed_tokens(pieces, 32), pieces) == std::set<std::string>{"e", "e2", "e2e", "e2e4"});
  REQUIRE(c.advance("e2e"));
  CHECK(pieces_of(c.allowed_tokens(pieces, 32), pieces) == std::set<std::string>{"3", "4", "4q"});
  REQUIRE(c.advance("4"));
  CHECK(c.is_complete());
  CHECK_FALSE(c.is_finished());
  // Complete but extendable: "q" or end-of-generation.
  CHECK(pieces_of(c.allowed_tokens(pieces, 32), pieces) == std::set<std::string>{"q", "<eos>"});
  CHECK_FALSE(c.advance("x"));
  REQUIRE(c.advance("q"));
  CHECK(c.is_finished());
}

TEST_CASE("Constraint allows only tokens after which an allowed string still fits the budget", "[engine]") {
  FakeTokenizer tok;
  PieceIndex pieces(tok, tok.vocab_size());
  auto c = make({"e2e4", "abc"});
  CHECK(c.min_tokens_to_complete(pieces) == 1);  // "e2e4" and "abc" are single tokens
  CHECK(pieces_of(c.allowed_tokens(pieces, 1), pieces) == std::set<std::string>{"e2e4", "abc"});
  // "e" leaves "2e4", two tokens at least ("2" "e4"); "a" leaves "bc", also two ("b" "c").
  CHECK(pieces_of(c.allowed_tokens(pieces, 2), pieces) ==
        std::set<std::string>{"e2", "e2e", "e2e4", "ab", "abc"});
  CHECK(pieces_of(c.allowed_tokens(pieces, 3), pieces) ==
        std::set<std::string>{"e", "e2", "e2e", "e2e4", "a", "ab", "abc"});
  CHECK(c.allowed_tokens(pieces, 0).empty());
  CHECK(c.min_tokens_after(pieces, "e") == 2);
  CHECK(c.min_tokens_after(pieces, "x") == Constraint::kUnreachable);
  auto unspellable = make({"\x01"});
  CHECK(unspellable.min_tokens_to_complete(pieces) == Constraint::kUnreachable);
}

TEST_CASE("Constraint forced text runs to the next choice", "[engine]") {
  auto c = make({"e2e3", "e2e4", "Nf3"});
  CHECK(c.forced_text().empty());  // 'e' or 'N'
  REQUIRE(c.advance("N"));
  CHECK(c.forced_text() == "f3");
  auto d = make({"e2e3", "e2e4"});
  CHECK(d.forced_text() == "e2e");
  auto e = make({"e2e4", "e2e4q"});
  REQUIRE(e.advance("e2e4"));
  CHECK(e.forced_text().empty());  // complete: stop or go on
}

TEST_CASE("tokens_spelling spells text exactly with the vocabulary", "[engine]") {
  FakeTokenizer tok;
  PieceIndex pieces(tok, tok.vocab_size());
  auto ids = tokens_spelling("Nf3", tok, pieces);
  CHECK(tok.decode(ids, false) == "Nf3");
  CHECK(tokens_spelling("f3e2", tok, pieces).size() == 2);
  CHECK(tokens_spelling("\x01", tok, pieces).empty());  // no piece holds that byte
}

TEST_CASE("Constrained requests always produce an allowed string", "[engine]") {
  FakeCore fake(256);
  PieceIndex pieces(fake.tok, fake.tok.vocab_size());
  const std::vector<std::vector<std::string>> sets{
      {"e2e3", "e2e4", "e2e4q"},
      {"Nf3", "Nc3", "e4", "e2e4", "d4", "abc", "ab"},
      {"the end", "the ending", "thing"},
      {"a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1a7", "a1a8", "b1c3", "Nf3 e2e4"},
      {"Nf3"}};
  struct Asked {
    size_t set;
    bool roomy;  // max_tokens to spare (else just enough for the shortest allowed string)
  };
  std::map<uint64_t, Asked> asked;
  uint64_t next = 1;
  for (size_t s = 0; s < sets.size(); ++s) {
    const int32_t fewest = make(sets[s]).min_tokens_to_complete(pieces);
    for (int rep = 0; rep < 16; ++rep) {
      const bool roomy = rep < 8;
      GenerateRequest r;
      r.prompt = "Move " + std::to_string(rep) + ":";
      r.allowed_completions = sets[s];
      r.sampling.temperature = rep == 0 ? 0.0f : roomy ? 1.5f : 2.0f;  // hot: try long spellings too
      r.sampling.seed = next;
      r.sampling.max_tokens = roomy ? 32 : fewest + rep % 2;
      auto seq = fake.core.make_sequence(SeqId{next}, r, Clock::now());
      REQUIRE(seq);
      fake.core.add(std::move(*seq));
      asked[next++] = {s, roomy};
    }
  }
  const auto results = run_until_done(fake.core, 200);
  REQUIRE(results.size() == asked.size());
  for (const auto& [id, a] : asked) {
    const auto& r = results.at(id);
    INFO("request " << id << " text '" << r.text << "'");
    CHECK(std::ranges::find(sets[a.set], r.text) != sets[a.set].end());
    // A complete string that a longer one extends ("e2e4", "e2e4q") may end a tight budget.
    if (a.roomy) CHECK(r.reason == FinishReason::Stop);
  }
  // The single-choice set is spelled by jump-forward, without sampling a token.
  CHECK(results.at(asked.rbegin()->first).tokens == std::vector<TokenId>{fake.tok.id_of("Nf3")});
}

TEST_CASE("A constrained request whose max_tokens cannot hold any allowed string is refused", "[engine]") {
  FakeCore fake(64);
  EngineCore& core = fake.core;
  GenerateRequest r;
  r.prompt = "say:";
  r.allowed_completions = {"Nf3 Nf3 Nf3", "e2e4 e2e4 e2e4 e2e4"};  // 5 and 7 tokens at least
  r.sampling.max_tokens = 4;
  auto refused = core.make_sequence(SeqId{1}, r, Clock::now());
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "max_tokens is 4 but the shortest allowed completion needs 5 tokens");
  r.allowed_completions = {"\x01"};
  r.sampling.max_tokens = 8;
  auto unspellable = core.make_sequence(SeqId{2}, r, Clock::now());
  REQUIRE_FALSE(unspellable);
  CHECK(unspellable.error().message.find("no allowed completion can be spelled") != std::string::npos);
}

TEST_CASE("Jump-forward spells the whole answer within max_tokens", "[engine]") {
  FakeCore fake(64);
  GenerateRequest r;
  r.prompt = "say:";
  r.allowed_completions = {"Nf3 Nf3 Nf3"};  // one choice: spelled at once, 5 tokens
  r.sampling.max_tokens = 5;
  fake.core.add(*fake.core.make_sequence(SeqId{1}, r, Clock::now()));
  const auto results = run_until_done(fake.core);
  CHECK(results.at(1).reason == FinishReason::Stop);
  CHECK(results.at(1).tokens.size() == 5);
  CHECK(results.at(1).text == "Nf3 Nf3 Nf3");
  CHECK(fake.core.metrics().num_steps == 0);  // nothing needed the model
}
