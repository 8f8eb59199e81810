// KV cache dtype names and their parser.
#include "engine/core/kv_dtype.h"

namespace engine {

namespace {
constexpr KvDtype kAll[] = {KvDtype::F32, KvDtype::F16, KvDtype::Q8_0};
}  // namespace

const char* to_string(KvDtype dtype) {
  switch (dtype) {
    case KvDtype::F32:
      return "f32";
    case KvDtype::F16:
      return "f16";
    case KvDtype::Q8_0:
      return "q8_0";
  }
  return "?";
}

std::expected<KvDtype, Error> parse_kv_dtype(std::string_view name) {
  for (KvDtype dtype : kAll)
    if (name == to_string(dtype)) return dtype;
  std::string known;
  for (const auto& n : kv_dtype_names()) known += (known.empty() ? "" : ", ") + n;
  return std::unexpected(Error{"unknown KV cache dtype '" + std::string(name) + "' (known: " + known + ")",
                               ErrorKind::InvalidArgument});
}

std::vector<std::string> kv_dtype_names() {
  std::vector<std::string> names;
  for (KvDtype dtype : kAll) names.emplace_back(to_string(dtype));
  return names;
}

}  // namespace engine
