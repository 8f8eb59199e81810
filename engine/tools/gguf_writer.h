// Writes GGUF v3 files: metadata of every value type (strings, numbers, nested arrays) and tensors
// declared up front (name, dims, type) whose bytes are then streamed in declaration order, so a
// multi-gigabyte model never has to be in memory at once. What it writes reads back through
// GgufFile::open and llama.cpp's gguf loader. The file appears under its name only once finish()
// succeeds; until then it is written to "<path>.part", which is removed on failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <expected>
#include <span>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "kernels/quant/ggml_type.h"

namespace engine::gguf {

// A tensor as declared to the writer; offset is from the start of the data section.
struct TensorEntry {
  std::string name;
  std::vector<int64_t> dims;  // ggml order: dims[0] is the row length
  kernels::GgmlType type = kernels::GgmlType::F32;
  uint64_t offset = 0;
  uint64_t num_bytes = 0;
};

class GgufWriter {
 public:
  // `alignment` (a power of two) is written as general.alignment, the first metadata key.
  explicit GgufWriter(uint32_t alignment = 32);
  ~GgufWriter();
  GgufWriter(const GgufWriter&) = delete;
  GgufWriter& operator=(const GgufWriter&) = delete;

  // Sets a metadata key; keys keep the order of their first set, a second set replaces the value.
  // Array elements must all hold the array's element type (asserted).
  void set(const std::string& key, Value value);
  void set_string(const std::string& key, std::string value) { set(key, Value{std::move(value)}); }
  void set_u32(const std::string& key, uint32_t value) { set(key, Value{value}); }
  void set_i32(const std::string& key, int32_t value) { set(key, Value{value}); }
  void set_f32(const std::string& key, float value) { set(key, Value{value}); }
  void set_bool(const std::string& key, bool value) { set(key, Value{value}); }
  void set_string_array(const std::string& key, const std::vector<std::string>& values);
  void set_i32_array(const std::string& key, std::span<const int32_t> values);
  void set_f32_array(const std::string& key, std::span<const float> values);
  // Removes a key (no-op when absent).
  void remove(const std::string& key);
  // The value of a key set so far, or nullptr.
  const Value* find(const std::string& key) const;

  // Declares the next tensor. Errors: empty, too long (ggml allows 63 bytes) or duplicate name,
  // 1 to 4 dims each positive, a row length that is not a multiple of the type's block size.
  std::expected<void, Error> add_tensor(const std::string& name, std::vector<int64_t> dims,
                                        kernels::GgmlType type);
  const std::vector<TensorEntry>& tensors() const { return tensors_; }

  // Creates "<path>.part" and writes the header, metadata and tensor infos; tensor data follows.
  std::expected<void, Error> begin(const std::string& path);
  // Appends bytes to the tensor being written (tensors in declaration order, each in as many
  // pieces as the caller likes); an error if it would overrun the declared tensors.
  std::expected<void, Error> write_data(std::span<const std::byte> bytes);
  // Checks every tensor got all its bytes, closes the file and renames it to `path`.
  std::expected<void, Error> finish();
  // Size of the file so far (its final size once finish() succeeded).
  uint64_t bytes_written() const { return bytes_written_; }

  // begin + every tensor's bytes (given in declaration order) + finish, for small files.
  std::expected<void, Error> write_file(const std::string& path,
                                        std::span<const std::vector<std::byte>> data);

 private:
  std::expected<void, Error> put(const void* bytes, size_t n);
  std::expected<void, Error> put_padding(uint64_t position);
  std::expected<void, Error> put_string(const std::string& s);
  std::expected<void, Error> put_value(const Value& value);
  std::expected<void, Error> fail(const std::string& what);
  void abandon();

  uint32_t alignment_;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::vector<TensorEntry> tensors_;
  uint64_t data_size_ = 0;  // end of the last declared tensor's padded data

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t bytes_written_ = 0;
  uint64_t data_start_ = 0;    // file position of the data section
  size_t current_ = 0;         // tensor being written
  uint64_t current_done_ = 0;  // its bytes written so far
};

}  // namespace engine::gguf
