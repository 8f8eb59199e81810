// GGUF writing. Layout (little endian, as gguf_file.cpp reads it): "GGUF", u32 version 3,
// u64 tensor count, u64 metadata count, metadata (key string, u32 value type, value), tensor
// infos (name, u32 n_dims, u64 dims, u32 type, u64 offset), zero padding to the alignment, then
// each tensor's bytes followed by zero padding to the alignment (as ggml's gguf writer pads).
#include "engine/tools/gguf_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace engine::gguf {

namespace {

constexpr uint32_t kVersion = 3;
constexpr size_t kMaxNameBytes = 63;  // ggml's GGML_MAX_NAME (64) less the terminating NUL
constexpr size_t kMaxDims = 4;
constexpr size_t kBufferBytes = size_t{8} << 20;

uint64_t align_up(uint64_t n, uint64_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

// The metadata type id of a value: the variant's alternatives are declared in id order.
ValueType type_of(const Value& value) {
  return static_cast<ValueType>(value.data.index());
}

bool well_typed(const Value& value) {
  const Array* a = value.as_array();
  if (!a) return true;
  return std::all_of(a->items.begin(), a->items.end(),
                     [&](const Value& item) { return type_of(item) == a->type && well_typed(item); });
}

}  // namespace

GgufWriter::GgufWriter(uint32_t alignment) : alignment_(alignment) {
  assert(alignment > 0 && (alignment & (alignment - 1)) == 0);
  set_u32("general.alignment", alignment);
}

GgufWriter::~GgufWriter() {
  abandon();
}

void GgufWriter::set(const std::string& key, Value value) {
  assert(well_typed(value));
  for (auto& [k, v] : metadata_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  metadata_.emplace_back(key, std::move(value));
}

void GgufWriter::set_string_array(const std::string& key, const std::vector<std::string>& values) {
  Array a{ValueType::String, {}};
  a.items.reserve(values.size());
  for (const auto& s : values) a.items.push_back(Value{s});
  set(key, Value{std::move(a)});
}

void GgufWriter::set_i32_array(const std::string& key, std::span<const int32_t> values) {
  Array a{ValueType::I32, {}};
  a.items.reserve(values.size());
  for (auto v : values) a.items.push_back(Value{v});
  set(key, Value{std::move(a)});
}

void GgufWriter::set_f32_array(const std::string& key, std::span<const float> values) {
  Array a{ValueType::F32, {}};
  a.items.reserve(values.size());
  for (auto v : values) a.items.push_back(Value{v});
  set(key, Value{std::move(a)});
}

void GgufWriter::remove(const std::string& key) {
  std::erase_if(metadata_, [&](const auto& kv) { return kv.first == key; });
}

const Value* GgufWriter::find(const std::string& key) const {
  for (const auto& [k, v] : metadata_)
    if (k == key) return &v;
  return nullptr;
}

std::expected<void, Error> GgufWriter::add_tensor(const std::string& name, std::vector<int64_t> dims,
                                                  kernels::GgmlType type) {
  auto error = [&](const std::string& what) {
    return std::unexpected(Error{fmt::format("tensor '{}': {}", name, what)});
  };
  if (file_) return error("tensors must be declared before begin()");
  if (name.empty() || name.size() > kMaxNameBytes)
    return error(fmt::format("name must be 1 to {} bytes long", kMaxNameBytes));
  if (std::any_of(tensors_.begin(), tensors_.end(), [&](const TensorEntry& t) { return t.name == name; }))
    return error("declared twice");
  if (dims.empty() || dims.size() > kMaxDims)
    return error(fmt::format("{} dimensions (1 to {} allowed)", dims.size(), kMaxDims));
  for (auto d : dims)
    if (d <= 0) return error(fmt::format("dimension {} is not positive", d));
  const auto traits = kernels::traits(type);
  if (dims[0] % traits.block_size != 0)
    return error(fmt::format("row length {} is not a multiple of the {} block size {}", dims[0], traits.name,
                             traits.block_size));
  int64_t num_elements = 1;
  for (auto d : dims) num_elements *= d;
  TensorEntry t{name, std::move(dims), type, data_size_,
                static_cast<uint64_t>(num_elements / traits.block_size) * traits.block_bytes};
  data_size_ = align_up(t.offset + t.num_bytes, alignment_);
  tensors_.push_back(std::move(t));
  return {};
}

std::expected<void, Error> GgufWriter::begin(const std::string& path) {
  if (file_) return std::unexpected(Error{fmt::format("{}: begin() called twice", path)});
  path_ = path;
  const std::string part = path + ".part";
  file_ = std::fopen(part.c_str(), "wb");
  if (!file_) return std::unexpected(Error{fmt::format("{}: cannot create: {}", part, std::strerror(errno))});
  std::setvbuf(file_, nullptr, _IOFBF, kBufferBytes);
  bytes_written_ = 0;
  current_ = 0;
  current_done_ = 0;

  const uint64_t num_tensors = tensors_.size();
  const uint64_t num_kv = metadata_.size();
  auto ok = put("GGUF", 4);
  if (ok) ok = put(&kVersion, 4);
  if (ok) ok = put(&num_tensors, 8);
  if (ok) ok = put(&num_kv, 8);
  for (const auto& [key, value] : metadata_) {
    if (!ok) break;
    const auto type = static_cast<uint32_t>(type_of(value));
    ok = put_string(key);
    if (ok) ok = put(&type, 4);
    if (ok) ok = put_value(value);
  }
  for (const auto& t : tensors_) {
    if (!ok) break;
    const auto n_dims = static_cast<uint32_t>(t.dims.size());
    const auto type = static_cast<uint32_t>(t.type);
    ok = put_string(t.name);
    if (ok) ok = put(&n_dims, 4);
    for (auto d : t.dims) {
      const auto dim = static_cast<uint64_t>(d);
      if (ok) ok = put(&dim, 8);
    }
    if (ok) ok = put(&type, 4);
    if (ok) ok = put(&t.offset, 8);
  }
  if (ok) ok = put_padding(bytes_written_);
  data_start_ = bytes_written_;
  return ok;
}

std::expected<void, Error> GgufWriter::write_data(std::span<const std::byte> bytes) {
  if (!file_) return std::unexpected(Error{"GGUF writer: write_data() without begin()"});
  while (!bytes.empty()) {
    if (current_ >= tensors_.size())
      return fail(fmt::format("{} bytes of tensor data beyond the last declared tensor", bytes.size()));
    const auto& t = tensors_[current_];
    const uint64_t n = std::min<uint64_t>(bytes.size(), t.num_bytes - current_done_);
    if (auto ok = put(bytes.data(), n); !ok) return ok;
    bytes = bytes.subspan(n);
    current_done_ += n;
    if (current_done_ == t.num_bytes) {
      if (auto ok = put_padding(bytes_written_ - data_start_); !ok) return ok;
      ++current_;
      current_done_ = 0;
    }
  }
  return {};
}

std::expected<void, Error> GgufWriter::finish() {
  if (!file_) return std::unexpected(Error{"GGUF writer: finish() without begin()"});
  if (current_ < tensors_.size())
    return fail(fmt::format("tensor '{}' got {} of its {} bytes", tensors_[current_].name, current_done_,
                            tensors_[current_].num_bytes));
  std::FILE* f = std::exchange(file_, nullptr);
  const bool flushed = std::fflush(f) == 0;
  const int saved_errno = errno;
  const bool closed = std::fclose(f) == 0;
  const std::string part = path_ + ".part";
  if (!flushed || !closed) {
    std::filesystem::remove(part);
    return std::unexpected(
        Error{fmt::format("{}: write failed: {}", part, std::strerror(flushed ? errno : saved_errno))});
  }
  std::error_code ec;
  std::filesystem::rename(part, path_, ec);
  if (ec) {
    std::filesystem::remove(part);
    return std::unexpected(Error{fmt::format("{}: cannot rename to {}: {}", part, path_, ec.message())});
  }
  return {};
}

std::expected<void, Error> GgufWriter::write_file(const std::string& path,
                                                  std::span<const std::vector<std::byte>> data) {
  if (data.size() != tensors_.size())
    return std::unexpected(Error{
        fmt::format("{}: {} tensors declared but data for {} given", path, tensors_.size(), data.size())});
  for (size_t i = 0; i < data.size(); ++i)
    if (data[i].size() != tensors_[i].num_bytes)
      return std::unexpected(Error{fmt::format("{}: tensor '{}' needs {} bytes, {} given", path,
                                               tensors_[i].name, tensors_[i].num_bytes, data[i].size())});
  if (auto ok = begin(path); !ok) return ok;
  for (const auto& bytes : data)
    if (auto ok = write_data(bytes); !ok) return ok;
  return finish();
}

std::expected<void, Error> GgufWriter::put(const void* bytes, size_t n) {
  if (n > 0 && std::fwrite(bytes, 1, n, file_) != n)
    return fail(fmt::format("write failed: {}", std::strerror(errno)));
  bytes_written_ += n;
  return {};
}

std::expected<void, Error> GgufWriter::put_padding(uint64_t position) {
  static constexpr std::byte kZeros[256] = {};
  uint64_t pad = align_up(position, alignment_) - position;
  while (pad > 0) {
    const uint64_t n = std::min<uint64_t>(pad, sizeof(kZeros));
    if (auto ok = put(kZeros, n); !ok) return ok;
    pad -= n;
  }
  return {};
}

std::expected<void, Error> GgufWriter::put_string(const std::string& s) {
  const uint64_t len = s.size();
  if (auto ok = put(&len, 8); !ok) return ok;
  return put(s.data(), s.size());
}

std::expected<void, Error> GgufWriter::put_value(const Value& value) {
  return std::visit(
      [&](const auto& v) -> std::expected<void, Error> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return put_string(v);
        } else if constexpr (std::is_same_v<T, Array>) {
          const auto type = static_cast<uint32_t>(v.type);
          const uint64_t count = v.items.size();
          auto ok = put(&type, 4);
          if (ok) ok = put(&count, 8);
          for (const auto& item : v.items) {
            if (!ok) break;
            ok = put_value(item);
          }
          return ok;
        } else if constexpr (std::is_same_v<T, bool>) {
          const uint8_t b = v ? 1 : 0;
          return put(&b, 1);
        } else {
          return put(&v, sizeof(v));
        }
      },
      value.data);
}

std::expected<void, Error> GgufWriter::fail(const std::string& what) {
  const std::string part = path_ + ".part";
  abandon();
  return std::unexpected(Error{fmt::format("{}: {}", part, what)});
}

void GgufWriter::abandon() {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::remove(path_ + ".part", ec);
}

}  // namespace engine::gguf
