// Tokenizer construction from hand-made vocabulary GGUFs: missing or unsupported metadata gives
// an error naming the key and the file's value, and a tiny BPE vocabulary shows merge-rank order,
// byte-level characters and the add_bos_token / add_eos_token keys at work.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"

namespace {

using Ids = std::vector<engine::TokenId>;
using Strings = std::vector<std::string>;
using Floats = std::vector<float>;
using Ints = std::vector<int32_t>;
using MetaValue = std::variant<std::string, int32_t, bool, Strings, Floats, Ints>;

// Writes a GGUF v3 file with only metadata (no tensors).
class MiniGguf {
 public:
  // Sets (or replaces) a key.
  MiniGguf& set(const std::string& key, MetaValue value) {
    for (auto& entry : entries_)
      if (entry.first == key) {
        entry.second = std::move(value);
        return *this;
      }
    entries_.emplace_back(key, std::move(value));
    return *this;
  }

  std::string write(const std::string& name) const {
    std::string out = "GGUF";
    put<uint32_t>(out, 3);
    put<uint64_t>(out, 0);
    put<uint64_t>(out, entries_.size());
    for (const auto& [key, value] : entries_) {
      put_string(out, key);
      std::visit([&](const auto& v) { put_value(out, v); }, value);
    }
    const auto path = std::filesystem::temp_directory_path() / ("arena_tokenizer_test_" + name + ".gguf");
    std::ofstream(path, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
    return path.string();
  }

 private:
  template <typename T>
  static void put(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  static void put_string(std::string& out, const std::string& s) {
    put<uint64_t>(out, s.size());
    out += s;
  }
  static void put_value(std::string& out, const std::string& s) { put<uint32_t>(out, 8), put_string(out, s); }
  static void put_value(std::string& out, int32_t v) { put<uint32_t>(out, 5), put<int32_t>(out, v); }
  static void put_value(std::string& out, bool v) { put<uint32_t>(out, 7), put<uint8_t>(out, v); }
  static void put_value(std::string& out, const Strings& v) {
    put<uint32_t>(out, 9), put<uint32_t>(out, 8), put<uint64_t>(out, v.size());
    for (const auto& s : v) put_string(out, s);
  }
  static void put_value(std::string& out, const Floats& v) {
    put<uint32_t>(out, 9), put<uint32_t>(out, 6), put<uint64_t>(out, v.size());
    for (float f : v) put<float>(out, f);
  }
  static void put_value(std::string& out, const Ints& v) {
    put<uint32_t>(out, 9), put<uint32_t>(out, 5), put<uint64_t>(out, v.size());
    for (int32_t i : v) put<int32_t>(out, i);
  }

  std::vector<std::pair<std::string, MetaValue>> entries_;
};

std::expected<std::unique_ptr<engine::Tokenizer>, engine::Error> tokenizer_of(const MiniGguf& gguf,
                                                                              const std::string& name) {
  const std::string path = gguf.write(name);
  auto file = engine::gguf::GgufFile::open(path);
  std::filesystem::remove(path);
  REQUIRE(file.has_value());
  return engine::Tokenizer::from_gguf(*file);
}

// The error message of building a tokenizer from `gguf` (fails the test when it succeeds).
std::string error_of(const MiniGguf& gguf, const std::string& name) {
  auto tokenizer = tokenizer_of(gguf, name);
  REQUIRE_FALSE(tokenizer.has_value());
  return tokenizer.error().message;
}

// A byte-level BPE vocabulary: "a", "b", "c", "Ġ" (space), "ab", "bc", "abc" and a control token.
MiniGguf tiny_bpe(const Strings& merges) {
  MiniGguf gguf;
  gguf.set("tokenizer.ggml.model", std::string("gpt2"))
      .set("tokenizer.ggml.pre", std::string("gpt-2"))
      .set("tokenizer.ggml.tokens", Strings{"a", "b", "c", "Ġ", "ab", "bc", "abc", "<|end|>"})
      .set("tokenizer.ggml.token_type", Ints{1, 1, 1, 1, 1, 1, 1, 3})
      .set("tokenizer.ggml.merges", merges)
      .set("tokenizer.ggml.eos_token_id", int32_t{7});
  return gguf;
}

}  // namespace

TEST_CASE("Tokenizer metadata errors name the key and the value", "[engine]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of(MiniGguf().set("general.name", std::string("x")), "no_model"),
             Contains("tokenizer.ggml.model is missing"));
  CHECK_THAT(error_of(MiniGguf().set("tokenizer.ggml.model", std::string("bert")), "bert"),
             Contains("tokenizer.ggml.model is 'bert'") && Contains("supported: llama"));
  CHECK_THAT(error_of(tiny_bpe({"a b"}).set("tokenizer.ggml.pre", std::string("falcon")), "pre"),
             Contains("tokenizer.ggml.pre is 'falcon'"));
  CHECK_THAT(error_of(MiniGguf()
                          .set("tokenizer.ggml.model", std::string("gpt2"))
                          .set("tokenizer.ggml.tokens", Strings{"a"}),
                      "no_merges"),
             Contains("tokenizer.ggml.merges is missing"));
  CHECK_THAT(error_of(MiniGguf()
                          .set("tokenizer.ggml.model", std::string("llama"))
                          .set("tokenizer.ggml.tokens", Strings{"<unk>", "<s>", "</s>"}),
                      "no_scores"),
             Contains("tokenizer.ggml.scores is missing"));
  CHECK_THAT(
      error_of(
          MiniGguf().set("tokenizer.ggml.model", std::string("llama")).set("tokenizer.ggml.scores", Floats{}),
          "no_tokens"),
      Contains("tokenizer.ggml.tokens is missing"));
  CHECK_THAT(error_of(MiniGguf()
                          .set("tokenizer.ggml.model", std::string("gpt2"))
                          .set("tokenizer.ggml.tokens", Strings{"a", "b", "a"})
                          .set("tokenizer.ggml.merges", Strings{}),
                      "duplicate"),
             Contains("'a' twice (ids 0 and 2)"));
  CHECK_THAT(error_of(tiny_bpe({}).set("tokenizer.ggml.add_bos_token", true), "add_bos"),
             Contains("tokenizer.ggml.add_bos_token is true but tokenizer.ggml.bos_token_id is not set"));
  CHECK_THAT(error_of(tiny_bpe({}).set("tokenizer.ggml.token_type", Ints{1}), "short_types"),
             Contains("tokenizer.ggml.token_type has 1 entries for 8 tokens"));
}

TEST_CASE("BPE merges apply lowest rank first", "[engine]") {
  auto ab_first = tokenizer_of(tiny_bpe({"a b", "b c", "ab c"}), "ab_first");
  REQUIRE(ab_first.has_value());
  CHECK((*ab_first)->encode("abc", false, false) == Ids{6});
  CHECK((*ab_first)->encode("abcab", false, false) == Ids{6, 4});

  auto bc_first = tokenizer_of(tiny_bpe({"b c", "a b", "ab c"}), "bc_first");
  REQUIRE(bc_first.has_value());
  CHECK((*bc_first)->encode("abc", false, false) == Ids{0, 5});  // "bc" forms first, "a"+"bc" has no merge

  // A space is the byte-level character "Ġ"; it stays a word of its own before a non-letter.
  CHECK((*ab_first)->encode("a b", false, false) == Ids{0, 3, 1});
  CHECK((*ab_first)->decode(Ids{0, 3, 1}) == "a b");
  // Bytes with no token are dropped, as llama.cpp does.
  CHECK((*ab_first)->encode("az", false, false) == Ids{0});
}

TEST_CASE("add_bos_token / add_eos_token and parse_special on a tiny vocabulary", "[engine]") {
  auto gguf = tiny_bpe({"a b"});
  gguf.set("tokenizer.ggml.bos_token_id", int32_t{2})
      .set("tokenizer.ggml.add_bos_token", true)
      .set("tokenizer.ggml.add_eos_token", true);
  auto tokenizer = tokenizer_of(gguf, "bos_eos");
  REQUIRE(tokenizer.has_value());
  const auto& t = **tokenizer;
  CHECK(t.encode("ab", true, false) == Ids{2, 4, 7});
  CHECK(t.encode("ab", false, false) == Ids{4});
  CHECK(t.encode("ab<|end|>", false, true) == Ids{4, 7});
  CHECK(t.is_end_of_generation(7));
  CHECK(t.is_control(7));
  CHECK_FALSE(t.is_end_of_generation(2));
}
