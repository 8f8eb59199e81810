// Names of batching modes, and their parser.
#include "engine/core/engine_config.h"

#include <string>

namespace engine {

const char* to_string(BatchingMode mode) {
  switch (mode) {
    case BatchingMode::Sequential:
      return "sequential";
    case BatchingMode::Static:
      return "static";
    case BatchingMode::Continuous:
      return "continuous";
  }
  return "?";
}

std::expected<BatchingMode, Error> parse_batching_mode(std::string_view name) {
  for (BatchingMode mode : {BatchingMode::Sequential, BatchingMode::Static, BatchingMode::Continuous})
    if (name == to_string(mode)) return mode;
  return std::unexpected(
      Error{"unknown batching mode '" + std::string(name) + "' (known: sequential, static, continuous)"});
}

}  // namespace engine
