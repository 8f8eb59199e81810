// GGUF writer: every metadata type and tensors of several types read back through GgufFile with
// the same values, offsets aligned and bytes intact; streaming in pieces writes the same file; bad
// declarations and short or long data give errors and leave no file behind.
#include "engine/tools/gguf_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/gguf/gguf_file.h"

namespace {

using engine::gguf::Array;
using engine::gguf::GgufFile;
using engine::gguf::GgufWriter;
using engine::gguf::Value;
using engine::gguf::ValueType;
using kernels::GgmlType;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("arena_gguf_writer_test_" + name)).string();
}

std::vector<std::byte> pattern(size_t n, int seed) {
  std::vector<std::byte> b(n);
  for (size_t i = 0; i < n; ++i)
    b[i] = static_cast<std::byte>((i * 31 + static_cast<size_t>(seed) * 7) & 0xFF);
  return b;
}

std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A writer with one key of every type and three tensors (F32 vector, Q8_0 matrix, Q4_K 3-D).
void declare(GgufWriter& w) {
  w.set("t.u8", Value{uint8_t{200}});
  w.set("t.i8", Value{int8_t{-100}});
  w.set("t.u16", Value{uint16_t{60000}});
  w.set("t.i16", Value{int16_t{-30000}});
  w.set_u32("t.u32", 4000000000u);
  w.set_i32("t.i32", -2000000000);
  w.set_f32("t.f32", 0.15625f);
  w.set_bool("t.bool", true);
  w.set_string("t.string", "h\xC3\xA9llo\nworld");
  w.set("t.u64", Value{uint64_t{1} << 60});
  w.set("t.i64", Value{-(int64_t{1} << 60)});
  w.set("t.f64", Value{1e300});
  w.set_string_array("t.strings", {"a", "", "Ġthe"});
  const int32_t ints[] = {1, -2, 3};
  w.set_i32_array("t.ints", ints);
  const float floats[] = {0.5f, -1.25f};
  w.set_f32_array("t.floats", floats);
  Array inner{ValueType::U8, {Value{uint8_t{1}}, Value{uint8_t{2}}}};
  w.set("t.nested", Value{Array{ValueType::Array, {Value{inner}, Value{Array{ValueType::U8, {}}}}}});
  REQUIRE(w.add_tensor("norm", {7}, GgmlType::F32));
  REQUIRE(w.add_tensor("matrix", {64, 3}, GgmlType::Q8_0));
  REQUIRE(w.add_tensor("cube", {256, 2, 2}, GgmlType::Q4_K));
}

}  // namespace

TEST_CASE("GGUF writer round-trips metadata of every type and tensor data", "[engine]") {
  GgufWriter w;
  declare(w);
  const std::vector<std::vector<std::byte>> data{pattern(28, 1), pattern(6 * 34, 2), pattern(4 * 144, 3)};
  const auto path = temp_path("roundtrip.gguf");
  REQUIRE(w.write_file(path, data));
  CHECK(w.bytes_written() == std::filesystem::file_size(path));

  auto f = GgufFile::open(path);
  REQUIRE(f.has_value());
  CHECK(f->version() == 3);
  CHECK(f->alignment() == 32);
  CHECK(f->get_int("general.alignment") == 32);
  CHECK(f->get_int("t.u8") == 200);
  CHECK(f->get_int("t.i8") == -100);
  CHECK(f->get_int("t.u16") == 60000);
  CHECK(f->get_int("t.i16") == -30000);
  CHECK(f->get_int("t.u32") == 4000000000);
  CHECK(f->get_int("t.i32") == -2000000000);
  CHECK(f->get_float("t.f32") == 0.15625);
  CHECK(std::get<bool>(f->find("t.bool")->data));
  CHECK(f->get_string("t.string") == "h\xC3\xA9llo\nworld");
  CHECK(std::get<uint64_t>(f->find("t.u64")->data) == uint64_t{1} << 60);
  CHECK(f->get_int("t.i64") == -(int64_t{1} << 60));
  CHECK(f->get_float("t.f64") == 1e300);
  CHECK(f->get_string_array("t.strings") == std::vector<std::string>{"a", "", "Ġthe"});
  CHECK(f->get_int_array("t.ints") == std::vector<int64_t>{1, -2, 3});
  CHECK(f->get_float_array("t.floats") == std::vector<double>{0.5, -1.25});
  const Array* nested = f->find("t.nested")->as_array();
  REQUIRE(nested);
  REQUIRE(nested->items.size() == 2);
  CHECK(nested->items[0].as_array()->items.size() == 2);
  CHECK(nested->items[0].as_array()->items[1].as_int() == 2);
  CHECK(nested->items[1].as_array()->items.empty());
  CHECK(f->metadata().size() == 17);  // 16 keys + general.alignment

  REQUIRE(f->tensors().size() == 3);
  const char* names[] = {"norm", "matrix", "cube"};
  for (size_t i = 0; i < 3; ++i) {
    const auto& t = f->tensors()[i];
    CHECK(t.name == names[i]);
    CHECK(t.offset % 32 == 0);
    CHECK(std::vector<std::byte>(t.data.begin(), t.data.end()) == data[i]);
  }
  CHECK(f->tensors()[2].dims == std::vector<int64_t>{256, 2, 2});
  CHECK(f->tensors()[2].type == GgmlType::Q4_K);
  CHECK(f->tensors()[1].offset == 32);  // 28 bytes of norm padded to 32
  std::filesystem::remove(path);
}

TEST_CASE("GGUF writer streams data in pieces to the same bytes, with any alignment", "[engine]") {
  const std::vector<std::vector<std::byte>> data{pattern(28, 4), pattern(6 * 34, 5), pattern(4 * 144, 6)};
  GgufWriter whole;
  declare(whole);
  const auto whole_path = temp_path("whole.gguf");
  REQUIRE(whole.write_file(whole_path, data));

  GgufWriter pieces;
  declare(pieces);
  const auto pieces_path = temp_path("pieces.gguf");
  REQUIRE(pieces.begin(pieces_path));
  CHECK_FALSE(std::filesystem::exists(pieces_path));  // only the .part file until finish()
  std::vector<std::byte> all;
  for (const auto& d : data) all.insert(all.end(), d.begin(), d.end());
  // Pieces that straddle tensor boundaries: the writer pads between tensors itself.
  for (size_t at = 0; at < all.size(); at += 13)
    REQUIRE(pieces.write_data(std::span(all).subspan(at, std::min<size_t>(13, all.size() - at))));
  REQUIRE(pieces.finish());
  CHECK(read_all(whole_path) == read_all(pieces_path));
  CHECK_FALSE(std::filesystem::exists(pieces_path + ".part"));

  GgufWriter aligned(256);
  declare(aligned);
  const auto aligned_path = temp_path("aligned.gguf");
  REQUIRE(aligned.write_file(aligned_path, data));
  auto f = GgufFile::open(aligned_path);
  REQUIRE(f.has_value());
  CHECK(f->alignment() == 256);
  for (const auto& t : f->tensors()) CHECK(t.offset % 256 == 0);
  CHECK(f->file_size() % 256 == 0);  // the last tensor is padded too, as ggml does
  for (const auto& p : {whole_path, pieces_path, aligned_path}) std::filesystem::remove(p);
}

TEST_CASE("GGUF writer rejects bad tensors and wrong data sizes without leaving files", "[engine]") {
  GgufWriter w;
  CHECK(w.add_tensor("", {32}, GgmlType::F32).error().message.find("name must be") != std::string::npos);
  CHECK(w.add_tensor(std::string(64, 'x'), {32}, GgmlType::F32).error().message.find("63") !=
        std::string::npos);
  CHECK(w.add_tensor("a", {}, GgmlType::F32).error().message.find("0 dimensions") != std::string::npos);
  CHECK(w.add_tensor("a", {1, 1, 1, 1, 1}, GgmlType::F32).error().message.find("5 dimensions") !=
        std::string::npos);
  CHECK(w.add_tensor("a", {32, 0}, GgmlType::F32).error().message.find("not positive") != std::string::npos);
  const auto bad_row = w.add_tensor("q", {100, 2}, GgmlType::Q4_K);
  REQUIRE_FALSE(bad_row);
  CHECK(bad_row.error().message == "tensor 'q': row length 100 is not a multiple of the q4_K block size 256");
  REQUIRE(w.add_tensor("a", {8}, GgmlType::F32));
  CHECK(w.add_tensor("a", {8}, GgmlType::F32).error().message.find("declared twice") != std::string::npos);

  const auto path = temp_path("short.gguf");
  REQUIRE(w.begin(path));
  REQUIRE(w.write_data(pattern(16, 1)));
  const auto short_data = w.finish();
  REQUIRE_FALSE(short_data);
  CHECK(short_data.error().message.find("tensor 'a' got 16 of its 32 bytes") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::exists(path + ".part"));

  GgufWriter w2;
  REQUIRE(w2.add_tensor("a", {8}, GgmlType::F32));
  REQUIRE(w2.begin(path));
  const auto long_data = w2.write_data(pattern(40, 1));
  REQUIRE_FALSE(long_data);
  CHECK(long_data.error().message.find("beyond the last declared tensor") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(path + ".part"));

  GgufWriter w3;
  const auto no_dir = w3.begin("/nonexistent-dir/x.gguf");
  REQUIRE_FALSE(no_dir);
  CHECK(no_dir.error().message.find("cannot create") != std::string::npos);
}

TEST_CASE("GGUF writer keeps key order and replaces a key set twice", "[engine]") {
  GgufWriter w;
  w.set_u32("b", 1);
  w.set_string("a", "x");
  w.set_u32("b", 2);
  w.remove("a");
  w.set_string("c", "y");
  CHECK(w.find("b")->as_int() == 2);
  CHECK(w.find("a") == nullptr);
  const auto path = temp_path("order.gguf");
  REQUIRE(w.write_file(path, {}));
  auto f = GgufFile::open(path);
  REQUIRE(f.has_value());
  CHECK(f->metadata().size() == 3);
  CHECK(f->get_int("b") == 2);
  CHECK(f->get_string("c") == "y");
  // Order in the file (the reader's map hides it, so read the bytes): after the 24-byte header,
  // general.alignment (8-byte length, 17 bytes, u32 type, u32 value), then "b".
  const auto bytes = read_all(path);
  REQUIRE(bytes.size() > 70);
  CHECK(std::string(bytes.begin() + 32, bytes.begin() + 49) == "general.alignment");
  CHECK(bytes[57] == 1);
  CHECK(bytes[65] == 'b');
  std::filesystem::remove(path);
}
