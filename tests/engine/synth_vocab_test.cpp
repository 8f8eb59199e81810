// Model synthesis, the vocabulary: a tokenizer file's keys copied (and deciding the vocabulary
// size), a corpus's merges, a built-in vocabulary that is consistent (every merge's result a token),
// the pre-tokenizer and BPE learning behind it, and the project's tokenizer round-tripping it.
#include "engine/tools/synth/synth_vocab.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "engine/gguf/gguf_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tools/gguf_writer.h"
#include "engine/tools/synth/byte_level_bpe.h"
#include "engine/tools/synth/synthesize.h"
#include "tests/common/testdata.h"
#include "tests/engine/synth_test_options.h"

namespace {

using engine::gguf::GgufFile;
using engine::synth::Arch;
using engine::synth::SynthDtype;
namespace synth = engine::synth;
using arena::test::synth_temp_path;
using arena::test::tiny_synth_options;

}  // namespace

TEST_CASE("A tokenizer file's tokenizer keys are copied and decide the vocabulary size", "[engine]") {
  auto source = tiny_synth_options(Arch::Llama, SynthDtype::F16, "vocab_source.gguf");
  REQUIRE(synth::synthesize(source));

  auto copy = tiny_synth_options(Arch::Qwen2, SynthDtype::Q8_0, "vocab_copy.gguf");
  copy.tokenizer_path = source.output_path;
  copy.shape.vocab = 0;
  auto result = synth::synthesize(copy);
  REQUIRE(result.has_value());
  CHECK(result->shape.vocab == 1024);
  auto from = GgufFile::open(source.output_path);
  auto to = GgufFile::open(copy.output_path);
  REQUIRE(from.has_value());
  REQUIRE(to.has_value());
  for (const auto& [key, value] : from->metadata())
    if (key.starts_with("tokenizer.")) CHECK(to->find(key) != nullptr);
  CHECK(to->get_string_array("tokenizer.ggml.merges") == from->get_string_array("tokenizer.ggml.merges"));

  copy.shape.vocab = 1000;
  copy.vocab_given = true;
  auto mismatch = synth::synthesize(copy);
  REQUIRE_FALSE(mismatch.has_value());
  CHECK(mismatch.error().message.find("--vocab 1000 disagrees with the 1024 tokens of") != std::string::npos);

  engine::gguf::GgufWriter empty;
  const auto empty_path = synth_temp_path("no_vocab.gguf");
  REQUIRE(empty.write_file(empty_path, {}));
  copy.tokenizer_path = empty_path;
  copy.vocab_given = false;
  CHECK(synth::synthesize(copy).error().message.find("no tokenizer.ggml.tokens") != std::string::npos);
  for (const auto& p : {source.output_path, copy.output_path, empty_path}) std::filesystem::remove(p);
}

TEST_CASE("A real vocabulary file can be copied", "[engine]") {
  ARENA_REQUIRE_TESTDATA(vocab, "tokenizers/ggml-vocab-gpt-2.gguf");
  synth::ShapeOverrides o;
  o.arch = Arch::Llama;
  o.num_layers = 1;
  o.embd = 32;
  o.num_heads = 1;
  o.ffn = 32;
  auto shape = synth::resolve_shape(std::nullopt, o);
  REQUIRE(shape.has_value());
  synth::SynthOptions options;
  options.shape = *shape;
  options.dtype = SynthDtype::Q8_0;
  options.tokenizer_path = vocab.string();
  options.output_path = synth_temp_path("gpt2_vocab.gguf");
  auto result = synth::synthesize(options);
  REQUIRE(result.has_value());
  auto f = GgufFile::open(options.output_path);
  REQUIRE(f.has_value());
  CHECK(f->get_string("tokenizer.ggml.pre") == "gpt-2");
  const auto n = static_cast<int64_t>(f->get_string_array("tokenizer.ggml.tokens")->size());
  CHECK(f->find_tensor("token_embd.weight")->dims == std::vector<int64_t>{32, n});
  CHECK(f->get_int("llama.vocab_size") == n);
  std::filesystem::remove(options.output_path);
}

TEST_CASE("A corpus replaces the built-in one: its frequent words become tokens", "[engine]") {
  std::string corpus;
  for (int i = 0; i < 50; ++i) corpus += "8 r.bqkb.r\n6 ........\nLegal moves: Nf3 Nc3 e4\n";
  auto v = synth::build_builtin_vocab(300, corpus);
  REQUIRE(v.has_value());
  CHECK(static_cast<int64_t>(v->tokens.size()) == 300);
  const std::set<std::string> tokens(v->tokens.begin(), v->tokens.end());
  CHECK(tokens.count("........"));
  CHECK(tokens.count("Legal"));
  auto builtin = synth::build_builtin_vocab(300);
  REQUIRE(builtin.has_value());
  CHECK(builtin->merges != v->merges);
}

TEST_CASE("The built-in vocabulary is a consistent byte-level BPE vocabulary", "[engine]") {
  for (int64_t size : {259, 300, 1024, 4000}) {
    INFO(size);
    auto v = synth::build_builtin_vocab(size);
    REQUIRE(v.has_value());
    REQUIRE(static_cast<int64_t>(v->tokens.size()) == size);
    REQUIRE(v->token_types.size() == v->tokens.size());
    CHECK(std::set<std::string>(v->tokens.begin(), v->tokens.end()).size() == v->tokens.size());
    CHECK(v->tokens[0] == "!");
    CHECK(v->tokens[255] == "\xC5\x83");  // byte 0xAD, the last of GPT-2's order: U+0143
    CHECK(v->tokens[v->bos] == "<|endoftext|>");
    CHECK(v->tokens[v->bos + 1] == "<|im_start|>");
    CHECK(v->tokens[v->eos] == "<|im_end|>");
    CHECK(v->bos == 256 + v->num_learned);
    CHECK(v->padding == v->bos);
    for (size_t i = 0; i < v->tokens.size(); ++i) {
      const auto id = static_cast<int32_t>(i);
      const auto type = id > v->eos    ? synth::TokenType::Unused
                        : id >= v->bos ? synth::TokenType::Control
                                       : synth::TokenType::Normal;
      CHECK(v->token_types[i] == static_cast<int32_t>(type));
      if (id > v->eos) CHECK(v->tokens[i] == "<|reserved_" + std::to_string(i - v->eos - 1) + "|>");
    }
    // Every merge joins two tokens that exist before it (bytes or earlier merges) into a token,
    // and every learned token is made by some merge: llama.cpp can produce each of them.
    std::set<std::string> reachable(v->tokens.begin(), v->tokens.begin() + 256);
    const std::set<std::string> all(v->tokens.begin(), v->tokens.end());
    for (const auto& m : v->merges) {
      const auto space = m.find(' ');
      REQUIRE(space != std::string::npos);
      const std::string left = m.substr(0, space), right = m.substr(space + 1);
      REQUIRE(reachable.count(left));
      REQUIRE(reachable.count(right));
      REQUIRE(all.count(left + right));
      reachable.insert(left + right);
    }
    for (int32_t i = 256; i < 256 + v->num_learned; ++i) CHECK(reachable.count(v->tokens[i]));
    CHECK(v->chat_template.find("<|im_start|>") != std::string::npos);
  }
  CHECK(synth::build_builtin_vocab(259)->merges.empty());
  CHECK(synth::build_builtin_vocab(258).error().message.find("too small") != std::string::npos);
  // Deterministic, and a larger vocabulary extends a smaller one's merges.
  const auto small = synth::build_builtin_vocab(400), large = synth::build_builtin_vocab(600);
  CHECK(synth::build_builtin_vocab(400)->tokens == small->tokens);
  REQUIRE(large->merges.size() >= small->merges.size());
  CHECK(std::equal(small->merges.begin(), small->merges.end(), large->merges.begin()));
}

TEST_CASE("Pre-tokenization for training splits as the qwen2 pre-tokenizer", "[engine]") {
  const auto pieces = synth::pretokenize("Hello world's  e2e4 Nf3\n\n O-O");
  const std::vector<std::string_view> expected{"Hello", " world", "'s", " ",    " e", "2", "e",
                                               "4",     " Nf",    "3",  "\n\n", " O", "-O"};
  CHECK(pieces == expected);
  CHECK(synth::to_byte_symbols("a b\n") ==
        "a\xC4\xA0"
        "b\xC4\x8A");  // space Ġ, newline Ċ
}

TEST_CASE("BPE learning merges the most frequent pair first, ties by text", "[engine]") {
  const std::map<std::string, int64_t> words{{"abab", 2}, {"ab", 1}, {"cd", 3}};
  const auto merges = synth::learn_merges(words, 10);
  // ab occurs 2 * 2 + 1 = 5 times, cd 3, then (ab, ab) 2.
  REQUIRE(merges.size() == 3);
  CHECK((merges[0].left == "a" && merges[0].right == "b"));
  CHECK((merges[1].left == "c" && merges[1].right == "d"));
  CHECK((merges[2].left == "ab" && merges[2].right == "ab"));
  CHECK(synth::learn_merges(words, 1).size() == 1);
}

TEST_CASE("The project's tokenizer reads the built-in vocabulary and round-trips move text", "[engine]") {
  auto options = tiny_synth_options(Arch::Qwen2, SynthDtype::F16, "tokenizer.gguf");
  REQUIRE(synth::synthesize(options));
  auto f = GgufFile::open(options.output_path);
  REQUIRE(f.has_value());
  auto tokenizer = engine::Tokenizer::from_gguf(*f);
  REQUIRE(tokenizer.has_value());
  const auto& tok = **tokenizer;
  CHECK(tok.vocab_size() == 1024);
  for (const char* text : {"e2e4 Nf3", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 O-O",
                           "You are playing janggi as Cho.\n h1g3", "caf\xC3\xA9 \xEC\x9E\xA5\xEA\xB8\xB0"}) {
    const auto ids = tok.encode(text, false, false);
    CHECK_FALSE(ids.empty());
    CHECK(tok.decode(ids) == text);
  }
  // Learned merges shorten common text: fewer tokens than bytes.
  CHECK(tok.encode("The knight moves to the center.", false, false).size() < 20);
  const auto chat = tok.encode("<|im_start|>user\nhi<|im_end|>", false, true);
  REQUIRE(chat.size() >= 3);
  CHECK(tok.token_to_piece(chat.front(), true) == "<|im_start|>");
  CHECK(chat.back() == tok.eos());
  CHECK(tok.is_control(chat.front()));
  CHECK(tok.is_end_of_generation(tok.eos()));
  CHECK_FALSE(tok.is_control(1023));  // a reserved (unused) padding token
  std::filesystem::remove(options.output_path);
}

TEST_CASE("User tokens are whole tokens in any text, in a built-in or a copied vocabulary", "[engine]") {
  const auto moves_path = synth_temp_path("user_tokens.txt");
  {
    std::ofstream out(moves_path, std::ios::binary);
    out << "Nf3\nNf3+\n\n08\xEB\xA7\x88"
           "87\n";  // a blank line is skipped; 08마87 is a janggi move
  }
  auto builtin = tiny_synth_options(Arch::Llama, SynthDtype::F16, "user_tokens_builtin.gguf");
  builtin.user_tokens_path = moves_path;
  REQUIRE(synth::synthesize(builtin));
  auto copied = tiny_synth_options(Arch::Llama, SynthDtype::F16, "user_tokens_copied.gguf");
  auto plain = tiny_synth_options(Arch::Llama, SynthDtype::F16, "user_tokens_plain.gguf");
  REQUIRE(synth::synthesize(plain));
  copied.tokenizer_path = plain.output_path;
  copied.shape.vocab = 0;
  copied.user_tokens_path = moves_path;
  auto grown = synth::synthesize(copied);
  REQUIRE(grown.has_value());
  CHECK(grown->shape.vocab == 1027);  // the source's 1,024 and three more

  for (const auto& path : {builtin.output_path, copied.output_path}) {
    auto f = GgufFile::open(path);
    REQUIRE(f.has_value());
    auto tokenizer = engine::Tokenizer::from_gguf(*f);
    REQUIRE(tokenizer.has_value());
    const auto& tok = **tokenizer;
    const std::string text =
        "Legal moves:\nNf3\nNf3+\n08\xEB\xA7\x88"
        "87\nLast move: Nf3.";
    const auto ids = tok.encode(text, false, false);
    CHECK(tok.decode(ids) == text);
    for (const std::string move : {"Nf3", "Nf3+",
                                   "08\xEB\xA7\x88"
                                   "87"}) {
      const auto one = tok.encode(move, false, false);
      REQUIRE(one.size() == 1);
      CHECK(tok.token_to_piece(one[0]) == move);
      CHECK(std::count(ids.begin(), ids.end(), one[0]) == (move == "Nf3" ? 2 : 1));
    }
  }

  {
    std::ofstream out(moves_path, std::ios::binary);
    out << "e4\nd4\ne4\n";
  }
  auto twice = synth::synthesize(builtin);
  REQUIRE_FALSE(twice.has_value());
  CHECK(twice.error().message.find("user_tokens.txt:3: the user token 'e4' is listed twice") !=
        std::string::npos);
  {
    std::ofstream out(moves_path, std::ios::binary);
    out << "<|im_end|>\n";
  }
  auto known = synth::synthesize(copied);
  REQUIRE_FALSE(known.has_value());
  CHECK(known.error().message.find("already has the user token '<|im_end|>'") != std::string::npos);
  CHECK(synth::build_builtin_vocab(260, "abc", std::vector<std::string>{"x1", "y2"})
            .error()
            .message.find("+ 2 user tokens = 261 at least") != std::string::npos);
  for (const auto& p : {builtin.output_path, copied.output_path, plain.output_path, moves_path})
    std::filesystem::remove(p);
}
