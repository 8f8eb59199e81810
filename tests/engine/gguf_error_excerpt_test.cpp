// GGUF errors quote keys and tensor names only as short, escaped excerpts: a corrupt key length
// that swallows a megabyte of the file (NULs included) still gives a one-line, printable message.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"

namespace {

void put_u32(std::string& b, uint32_t v) {
  b.append(reinterpret_cast<const char*>(&v), 4);
}
void put_u64(std::string& b, uint64_t v) {
  b.append(reinterpret_cast<const char*>(&v), 8);
}

std::string write_temp(const std::string& bytes, const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() / ("arena_gguf_excerpt_" + name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

bool printable_one_line(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f) return false;
  return true;
}

}  // namespace

TEST_CASE("GGUF error for a huge corrupt key quotes a short escaped excerpt", "[engine]") {
  std::string b = "GGUF";
  put_u32(b, 3);
  put_u64(b, 0);  // tensors
  put_u64(b, 1);  // metadata
  const size_t key_len = 1 << 20;
  put_u64(b, key_len);
  std::string key(key_len, '\0');
  for (size_t i = 0; i < key_len; ++i) key[i] = static_cast<char>(i % 7 == 0 ? '\n' : (i % 3 ? 0 : 'A'));
  b += key;
  put_u32(b, 999);  // an unknown value type: the error names the key
  const auto path = write_temp(b, "key.gguf");
  const auto file = engine::gguf::GgufFile::open(path);
  std::filesystem::remove(path);
  REQUIRE_FALSE(file);
  const auto& msg = file.error().message;
  INFO(msg.substr(0, 400));
  CHECK(msg.size() < 400);
  CHECK(printable_one_line(msg));
  CHECK(msg.find("unknown metadata value type 999") != std::string::npos);
  CHECK(msg.find("\\x0a") != std::string::npos);
  CHECK(msg.find("(1048576 bytes)") != std::string::npos);
}

TEST_CASE("GGUF error for a bad tensor name escapes it", "[engine]") {
  std::string b = "GGUF";
  put_u32(b, 3);
  put_u64(b, 1);  // tensors
  put_u64(b, 0);  // metadata
  const std::string name = std::string("w\0\x01\xff'\\", 6);
  put_u64(b, name.size());
  b += name;
  put_u32(b, 9);              // too many dimensions
  b += std::string(64, 'x');  // room for the tensor count check
  const auto path = write_temp(b, "tensor.gguf");
  const auto file = engine::gguf::GgufFile::open(path);
  std::filesystem::remove(path);
  REQUIRE_FALSE(file);
  const auto& msg = file.error().message;
  INFO(msg);
  CHECK(printable_one_line(msg));
  CHECK(msg.find("tensor 'w\\x00\\x01\\xff\\x27\\x5c': 9 dimensions") != std::string::npos);
}
