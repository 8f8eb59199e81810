// A GGUF (v2/v3) model file over a read-only memory map: metadata key/values of every type,
// tensor infos, and tensor data as views into the map (the weights are never copied).
// Every offset, count and size is checked against the file, so a truncated or corrupt file
// yields an Error naming the file, the offset or key, and the problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "engine/error.h"
#include "kernels/quant/ggml_type.h"

namespace engine::gguf {

// GGUF metadata value types (the ids stored in the file).
enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};

struct Value;

// A metadata array: its element type and elements (nested arrays allowed).
struct Array {
  ValueType type = ValueType::U8;
  std::vector<Value> items;
};

// One metadata value.
struct Value {
  std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool, std::string, Array,
               uint64_t, int64_t, double>
      data;

  // The value as an integer when it is one of the integer types (or bool).
  std::optional<int64_t> as_int() const;
  // The value as a float when it is a float or an integer type.
  std::optional<double> as_float() const;
  // The string, when it is one.
  const std::string* as_string() const;
  // The array, when it is one.
  const Array* as_array() const;
};

// Tensor description plus a view of its bytes in the map.
struct TensorInfo {
  std::string name;
  std::vector<int64_t> dims;  // ggml order: dims[0] is the contiguous (row) dimension
  kernels::GgmlType type = kernels::GgmlType::F32;
  uint64_t offset = 0;  // from the start of the data section
  std::span<const std::byte> data;

  int64_t num_elements() const;
  int64_t rows() const { return num_elements() / (dims.empty() ? 1 : dims[0]); }
};

class GgufFile {
 public:
  // Maps and parses `path`; any problem yields an Error naming the file and what is wrong.
  static std::expected<GgufFile, Error> open(const std::string& path);

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  size_t alignment() const { return alignment_; }
  size_t file_size() const;
  // The whole file as mapped (every tensor's data is a view into it).
  std::span<const std::byte> bytes() const;

  // All metadata, by key.
  const std::map<std::string, Value>& metadata() const { return metadata_; }
  // One metadata value, or nullptr when the key is absent.
  const Value* find(const std::string& key) const;
  std::optional<int64_t> get_int(const std::string& key) const;
  std::optional<double> get_float(const std::string& key) const;
  std::optional<std::string> get_string(const std::string& key) const;
  // A string array (e.g. tokenizer.ggml.tokens), or nullopt when absent or of another type.
  std::optional<std::vector<std::string>> get_string_array(const std::string& key) const;
  // A numeric array converted to doubles (e.g. tokenizer.ggml.scores).
  std::optional<std::vector<double>> get_float_array(const std::string& key) const;
  std::optional<std::vector<int64_t>> get_int_array(const std::string& key) const;

  // Tensors in file order.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // One tensor by name, or nullptr.
  const TensorInfo* find_tensor(const std::string& name) const;

 private:
  struct Mapping;
  std::string path_;
  uint32_t version_ = 0;
  size_t alignment_ = 32;
  std::shared_ptr<const Mapping> map_;
  std::map<std::string, Value> metadata_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, size_t> tensor_index_;
};

// "u8", "string", "array", ... for messages.
const char* to_string(ValueType type);

}  // namespace engine::gguf
