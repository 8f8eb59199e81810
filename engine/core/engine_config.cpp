// Names of batching modes, and their parser.
#include "engine/core/engine_config.h"

#include <string>

namespace engine {

const char* to_string(BatchingMode mode) {
  return base::enum_name(kBatchingModeNames, mode);
}

std::expected<BatchingMode, Error> parse_batching_mode(std::string_view name) {
  if (auto mode = base::enum_value(kBatchingModeNames, name)) return *mode;
  return std::unexpected(
      Error{"unknown batching mode '" + std::string(name) + "' (known: sequential, static, continuous)"});
}

}  // namespace engine
