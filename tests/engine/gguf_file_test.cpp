// GGUF reader: the shared test models parse with the expected metadata and tensors, and
// truncated, bit-flipped or garbage copies yield errors (never crashes or reads past the end).
#include "engine/gguf/gguf_file.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "tests/common/testdata.h"

namespace {

std::vector<char> read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string write_temp(const std::vector<char>& bytes, const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() / ("arena_gguf_test_" + name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

}  // namespace

TEST_CASE("GGUF reader parses the llama test model", "[engine]") {
  ARENA_REQUIRE_TESTDATA(path, "models/llama-spm-gqa-q8_0.gguf");
  auto file = engine::gguf::GgufFile::open(path.string());
  REQUIRE(file.has_value());
  CHECK(file->version() == 3);
  CHECK(file->get_string("general.architecture") == "llama");
  CHECK(file->get_int("llama.block_count") == 2);
  CHECK(file->get_int("llama.embedding_length") == 256);
  CHECK(file->get_int("llama.attention.head_count_kv") == 1);
  const auto tokens = file->get_string_array("tokenizer.ggml.tokens");
  REQUIRE(tokens);
  CHECK(tokens->size() == 4096);
  const auto* q = file->find_tensor("blk.0.attn_q.weight");
  REQUIRE(q);
  CHECK(q->dims == std::vector<int64_t>{256, 256});
  CHECK(q->type == kernels::GgmlType::Q8_0);
  CHECK(q->data.size() == 256 * 256 / 32 * 34);
  CHECK(file->find_tensor("no.such.tensor") == nullptr);
}

TEST_CASE("GGUF reader rejects bad files with a message naming the problem", "[engine]") {
  CHECK(engine::gguf::GgufFile::open("/nonexistent/model.gguf").error().message.find("cannot open") !=
        std::string::npos);
  const auto garbage = write_temp({'G', 'G', 'U', 'X', 3, 0, 0, 0}, "magic.gguf");
  CHECK(engine::gguf::GgufFile::open(garbage).error().message.find("bad magic") != std::string::npos);
  const auto version = write_temp({'G', 'G', 'U', 'F', 9, 0, 0, 0}, "version.gguf");
  CHECK(engine::gguf::GgufFile::open(version).error().message.find("unsupported GGUF version 9") !=
        std::string::npos);
  std::filesystem::remove(garbage);
  std::filesystem::remove(version);
}

TEST_CASE("GGUF reader survives truncated and bit-flipped copies of every test model", "[engine]") {
  ARENA_REQUIRE_TESTDATA(dir, "models");
  std::mt19937 rng(1234);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".gguf") continue;
    const auto bytes = read_all(entry.path());
    INFO(entry.path().filename().string());
    // Truncations: every prefix length class, from the header to just before the end.
    for (size_t cut : {size_t{0}, size_t{3}, size_t{7}, size_t{23}, size_t{100}, bytes.size() / 3,
                       bytes.size() / 2, bytes.size() - 1}) {
      const auto path =
          write_temp({bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)}, "cut.gguf");
      const auto r = engine::gguf::GgufFile::open(path);
      CHECK_FALSE(r.has_value());
      if (!r) CHECK(r.error().message.find(path) != std::string::npos);
    }
    // Bit flips in the header and metadata region: either a clean error or a consistent file.
    const size_t header_span = std::min<size_t>(bytes.size(), 64 * 1024);
    for (int i = 0; i < 60; ++i) {
      auto copy = bytes;
      const size_t at = std::uniform_int_distribution<size_t>(0, header_span - 1)(rng);
      copy[at] = static_cast<char>(copy[at] ^ (1 << std::uniform_int_distribution<int>(0, 7)(rng)));
      const auto r = engine::gguf::GgufFile::open(write_temp(copy, "flip.gguf"));
      if (r) {
        for (const auto& t : r->tensors()) CHECK(t.data.size() <= r->file_size());
      } else {
        CHECK(!r.error().message.empty());
      }
    }
  }
  std::filesystem::remove(std::filesystem::temp_directory_path() / "arena_gguf_test_cut.gguf");
  std::filesystem::remove(std::filesystem::temp_directory_path() / "arena_gguf_test_flip.gguf");
}
