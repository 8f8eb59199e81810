// KV cache dtype names and their parser.
#include "engine/core/kv_dtype.h"

namespace engine {

const char* to_string(KvDtype dtype) {
  return base::enum_name(kKvDtypeNames, dtype);
}

std::expected<KvDtype, Error> parse_kv_dtype(std::string_view name) {
  if (auto dtype = base::enum_value(kKvDtypeNames, name)) return *dtype;
  std::string known;
  for (const auto& n : kv_dtype_names()) known += (known.empty() ? "" : ", ") + n;
  return std::unexpected(Error{"unknown KV cache dtype '" + std::string(name) + "' (known: " + known + ")",
                               ErrorKind::InvalidArgument});
}

std::vector<std::string> kv_dtype_names() {
  return base::enum_names(kKvDtypeNames);
}

}  // namespace engine
