// GGUF parsing: header, metadata, tensor infos, then views of the aligned data section.
// Layout (little endian): magic "GGUF", u32 version, u64 tensor count, u64 metadata count,
// metadata key/values, tensor infos (name, u32 n_dims, u64 dims[n_dims], u32 type, u64 offset),
// padding to `general.alignment` (default 32), tensor data.
#include "engine/gguf/gguf_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <string_view>
#include <tuple>
#include <utility>

namespace engine::gguf {

namespace {

constexpr uint32_t kMaxDims = 4;
constexpr int kMaxArrayDepth = 4;

// A parse failure at a byte offset; caught in GgufFile::open and turned into an Error.
struct ParseFailure {
  size_t offset;
  std::string what;
};

// A bounds-checked little-endian cursor over the mapped bytes.
class Cursor {
 public:
  Cursor(const std::byte* data, size_t size) : data_(data), size_(size) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }

  template <typename T>
  T read(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  std::string read_string(const char* what) {
    const auto len = read<uint64_t>(what);
    need(len, what);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), len);
    pos_ += len;
    return s;
  }

  void need(uint64_t n, const char* what) const {
    if (n > remaining())
      throw ParseFailure{
          pos_, fmt::format("truncated file: {} needs {} bytes, only {} left", what, n, remaining())};
  }

 private:
  const std::byte* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A key or tensor name as it may appear in an error: at most kMaxExcerpt bytes, with anything
// outside printable ASCII (NULs, control bytes, UTF-8) written as \xNN and a note of the full
// length when cut, so a corrupt length cannot pour raw file bytes into a message.
constexpr size_t kMaxExcerpt = 48;
std::string excerpt(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < kMaxExcerpt; ++i) {
    const auto ch = static_cast<unsigned char>(s[i]);
    if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '\'')
      out += static_cast<char>(ch);
    else
      out += fmt::format("\\x{:02x}", ch);
  }
  if (s.size() > kMaxExcerpt) out += fmt::format("... ({} bytes)", s.size());
  return out;
}

// Smallest encoded size of one element of `type` (used to reject absurd array counts early).
uint64_t min_encoded_size(ValueType type) {
  switch (type) {
    case ValueType::U8:
    case ValueType::I8:
    case ValueType::Bool:
      return 1;
    case ValueType::U16:
    case ValueType::I16:
      return 2;
    case ValueType::U32:
    case ValueType::I32:
    case ValueType::F32:
      return 4;
    case ValueType::U64:
    case ValueType::I64:
    case ValueType::F64:
    case ValueType::String:
      return 8;
    case ValueType::Array:
      return 12;
  }
  return 1;
}

Value read_value(Cursor& c, ValueType type, int depth);

Array read_array(Cursor& c, int depth) {
  if (depth > kMaxArrayDepth) throw ParseFailure{c.pos(), "metadata arrays nested too deeply"};
  Array a;
  const size_t at = c.pos();
  const auto raw_type = c.read<uint32_t>("array element type");
  if (raw_type > static_cast<uint32_t>(ValueType::F64))
    throw ParseFailure{at, fmt::format("unknown metadata value type {}", raw_type)};
  a.type = static_cast<ValueType>(raw_type);
  const auto count = c.read<uint64_t>("array length");
  if (count > c.remaining() / min_encoded_size(a.type))
    throw ParseFailure{at, fmt::format("array of {} elements does not fit in the file", count)};
  a.items.reserve(count);
  for (uint64_t i = 0; i < count; ++i) a.items.push_back(read_value(c, a.type, depth + 1));
  return a;
}

Value read_value(Cursor& c, ValueType type, int depth) {
  switch (type) {
    case ValueType::U8:
      return {c.read<uint8_t>("u8 value")};
    case ValueType::I8:
      return {c.read<int8_t>("i8 value")};
    case ValueType::U16:
      return {c.read<uint16_t>("u16 value")};
    case ValueType::I16:
      return {c.read<int16_t>("i16 value")};
    case ValueType::U32:
      return {c.read<uint32_t>("u32 value")};
    case ValueType::I32:
      return {c.read<int32_t>("i32 value")};
    case ValueType::F32:
      return {c.read<float>("f32 value")};
    case ValueType::U64:
      return {c.read<uint64_t>("u64 value")};
    case ValueType::I64:
      return {c.read<int64_t>("i64 value")};
    case ValueType::F64:
      return {c.read<double>("f64 value")};
    case ValueType::Bool: {
      const size_t at = c.pos();
      const auto b = c.read<uint8_t>("bool value");
      if (b > 1) throw ParseFailure{at, fmt::format("bool value {} is neither 0 nor 1", b)};
      return {b == 1};
    }
    case ValueType::String:
      return {c.read_string("string value")};
    case ValueType::Array:
      return {read_array(c, depth)};
  }
  throw ParseFailure{c.pos(), "unknown metadata value type"};
}

}  // namespace

// The memory map, shared by copies of a GgufFile and unmapped when the last one goes.
struct GgufFile::Mapping {
  const std::byte* data = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (data && size) munmap(const_cast<std::byte*>(data), size);
  }
};

std::optional<int64_t> Value::as_int() const {
  return std::visit(
      [](const auto& v) -> std::optional<int64_t> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>)
          return v ? 1 : 0;
        else if constexpr (std::is_same_v<T, uint64_t>) {
          if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
          return static_cast<int64_t>(v);
        } else if constexpr (std::is_integral_v<T>)
          return static_cast<int64_t>(v);
        else
          return std::nullopt;
      },
      data);
}

std::optional<double> Value::as_float() const {
  if (const auto* f = std::get_if<float>(&data)) return *f;
  if (const auto* d = std::get_if<double>(&data)) return *d;
  if (std::holds_alternative<bool>(data)) return std::nullopt;
  if (auto i = as_int()) return static_cast<double>(*i);
  return std::nullopt;
}

const std::string* Value::as_string() const {
  return std::get_if<std::string>(&data);
}
const Array* Value::as_array() const {
  return std::get_if<Array>(&data);
}

int64_t TensorInfo::num_elements() const {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

const char* to_string(ValueType type) {
  static constexpr const char* kNames[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                           "bool", "string", "array", "u64", "i64", "f64"};
  const auto i = static_cast<uint32_t>(type);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

namespace {

// The file mapped read-only (an empty file maps to nothing), or why not.
std::expected<std::pair<const std::byte*, size_t>, std::string> map_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::unexpected(fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::unexpected("not a regular file");
  }
  const auto size = static_cast<size_t>(st.st_size);
  const std::byte* data = nullptr;
  if (size > 0) {
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      return std::unexpected(fmt::format("cannot map: {}", std::strerror(error)));
    }
    data = static_cast<const std::byte*>(p);
  }
  ::close(fd);
  return std::pair{data, size};
}

void read_metadata(Cursor& c, uint64_t num_kv, std::map<std::string, Value>& metadata) {
  for (uint64_t i = 0; i < num_kv; ++i) {
    const size_t at = c.pos();
    auto key = c.read_string("metadata key");
    const auto raw_type = c.read<uint32_t>("metadata value type");
    if (raw_type > static_cast<uint32_t>(ValueType::F64))
      throw ParseFailure{at, fmt::format("key '{}': unknown metadata value type {}", excerpt(key), raw_type)};
    auto value = read_value(c, static_cast<ValueType>(raw_type), 0);
    if (!metadata.emplace(key, std::move(value)).second)
      throw ParseFailure{at, fmt::format("duplicate metadata key '{}'", excerpt(key))};
  }
}

// One tensor info: name, dimensions, type and offset, each checked.
TensorInfo read_tensor_info(Cursor& c, size_t alignment) {
  const size_t at = c.pos();
  TensorInfo t;
  t.name = c.read_string("tensor name");
  const auto n_dims = c.read<uint32_t>("tensor dimension count");
  if (n_dims == 0 || n_dims > kMaxDims)
    throw ParseFailure{
        at, fmt::format("tensor '{}': {} dimensions (1 to {} supported)", excerpt(t.name), n_dims, kMaxDims)};
  int64_t count = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    const auto dim = c.read<uint64_t>("tensor dimension");
    if (dim == 0 || dim > (uint64_t{1} << 40) || static_cast<uint64_t>(count) > (uint64_t{1} << 48) / dim)
      throw ParseFailure{
          at, fmt::format("tensor '{}': dimension {} = {} is out of range", excerpt(t.name), d, dim)};
    t.dims.push_back(static_cast<int64_t>(dim));
    count *= static_cast<int64_t>(dim);
  }
  const auto type_id = c.read<uint32_t>("tensor type");
  const auto traits = kernels::ggml_type_traits(type_id);
  if (!traits)
    throw ParseFailure{
        at, fmt::format("tensor '{}': unknown or unsupported tensor type {}", excerpt(t.name), type_id)};
  t.type = static_cast<kernels::GgmlType>(type_id);
  if (t.dims[0] % traits->block_size != 0)
    throw ParseFailure{at, fmt::format("tensor '{}': row length {} is not a multiple of the {} block size {}",
                                       excerpt(t.name), t.dims[0], traits->name, traits->block_size)};
  t.offset = c.read<uint64_t>("tensor offset");
  if (t.offset % alignment != 0)
    throw ParseFailure{
        at, fmt::format("tensor '{}': offset {} is not aligned to {}", excerpt(t.name), t.offset, alignment)};
  return t;
}

// Points each tensor at its bytes in the data section, which starts at `data_start`.
void bind_tensor_data(std::vector<TensorInfo>& tensors, const std::byte* data, size_t size,
                      size_t data_start) {
  for (auto& t : tensors) {
    const auto traits = kernels::traits(t.type);
    const uint64_t bytes = static_cast<uint64_t>(t.num_elements() / traits.block_size) * traits.block_bytes;
    if (data_start > size || t.offset > size - data_start || bytes > size - data_start - t.offset)
      throw ParseFailure{data_start + t.offset,
                         fmt::format("truncated file: tensor '{}' ({} bytes at data offset {}) "
                                     "extends past the end of the file ({} bytes)",
                                     excerpt(t.name), bytes, t.offset, size)};
    t.data = {data + data_start + t.offset, static_cast<size_t>(bytes)};
  }
}

}  // namespace

std::expected<GgufFile, Error> GgufFile::open(const std::string& path) {
  auto mapped = map_file(path);
  if (!mapped) return std::unexpected(Error{fmt::format("{}: {}", path, mapped.error())});
  auto map = std::make_shared<Mapping>();
  std::tie(map->data, map->size) = *mapped;

  GgufFile file;
  file.path_ = path;
  file.map_ = map;
  Cursor c(map->data, map->size);
  try {
    c.need(4, "magic");
    if (std::memcmp(map->data, "GGUF", 4) != 0) throw ParseFailure{0, "bad magic: not a GGUF file"};
    c.read<uint32_t>("magic");
    file.version_ = c.read<uint32_t>("version");
    if (file.version_ != 2 && file.version_ != 3)
      throw ParseFailure{4, fmt::format("unsupported GGUF version {} (supported: 2, 3)", file.version_)};
    const auto num_tensors = c.read<uint64_t>("tensor count");
    const auto num_kv = c.read<uint64_t>("metadata count");
    if (num_kv > c.remaining() / 12)
      throw ParseFailure{16, fmt::format("metadata count {} does not fit", num_kv)};
    if (num_tensors > c.remaining() / 24)
      throw ParseFailure{8, fmt::format("tensor count {} does not fit", num_tensors)};
    read_metadata(c, num_kv, file.metadata_);

    if (const auto* a = file.find("general.alignment")) {
      const auto align = a->as_int();
      if (!align || *align <= 0 || (*align & (*align - 1)) != 0 || *align > (1 << 20))
        throw ParseFailure{c.pos(), "key 'general.alignment': must be a power of two"};
      file.alignment_ = static_cast<size_t>(*align);
    }
    for (uint64_t i = 0; i < num_tensors; ++i) {
      const size_t at = c.pos();
      TensorInfo t = read_tensor_info(c, file.alignment_);
      if (!file.tensor_index_.emplace(t.name, file.tensors_.size()).second)
        throw ParseFailure{at, fmt::format("duplicate tensor name '{}'", excerpt(t.name))};
      file.tensors_.push_back(std::move(t));
    }
    const size_t data_start = (c.pos() + file.alignment_ - 1) / file.alignment_ * file.alignment_;
    bind_tensor_data(file.tensors_, map->data, map->size, data_start);
  } catch (const ParseFailure& f) {
    return std::unexpected(Error{fmt::format("{}: at offset {}: {}", path, f.offset, f.what)});
  }
  return file;
}

size_t GgufFile::file_size() const {
  return map_ ? map_->size : 0;
}

std::span<const std::byte> GgufFile::bytes() const {
  if (!map_ || !map_->data) return {};
  return {map_->data, map_->size};
}

const Value* GgufFile::find(const std::string& key) const {
  auto it = metadata_.find(key);
  return it == metadata_.end() ? nullptr : &it->second;
}

std::optional<int64_t> GgufFile::get_int(const std::string& key) const {
  const auto* v = find(key);
  return v ? v->as_int() : std::nullopt;
}

std::optional<double> GgufFile::get_float(const std::string& key) const {
  const auto* v = find(key);
  return v ? v->as_float() : std::nullopt;
}

std::optional<std::string> GgufFile::get_string(const std::string& key) const {
  const auto* v = find(key);
  if (!v || !v->as_string()) return std::nullopt;
  return *v->as_string();
}

std::optional<std::vector<std::string>> GgufFile::get_string_array(const std::string& key) const {
  const auto* v = find(key);
  const Array* a = v ? v->as_array() : nullptr;
  if (!a || a->type != ValueType::String) return std::nullopt;
  std::vector<std::string> out;
  out.reserve(a->items.size());
  for (const auto& item : a->items) out.push_back(*item.as_string());
  return out;
}

std::optional<std::vector<double>> GgufFile::get_float_array(const std::string& key) const {
  const auto* v = find(key);
  const Array* a = v ? v->as_array() : nullptr;
  if (!a) return std::nullopt;
  std::vector<double> out;
  out.reserve(a->items.size());
  for (const auto& item : a->items) {
    const auto f = item.as_float();
    if (!f) return std::nullopt;
    out.push_back(*f);
  }
  return out;
}

std::optional<std::vector<int64_t>> GgufFile::get_int_array(const std::string& key) const {
  const auto* v = find(key);
  const Array* a = v ? v->as_array() : nullptr;
  if (!a) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(a->items.size());
  for (const auto& item : a->items) {
    const auto i = item.as_int();
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

const TensorInfo* GgufFile::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace engine::gguf
