// Names of batching modes.
#include "engine/core/engine_config.h"

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

}  // namespace engine
