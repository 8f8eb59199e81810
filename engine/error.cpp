// Names of the engine's error kinds.
#include "engine/error.h"

namespace engine {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidArgument:
      return "invalid argument";
    case ErrorKind::NotFound:
      return "not found";
    case ErrorKind::InvalidFile:
      return "invalid file";
    case ErrorKind::Unsupported:
      return "unsupported";
    case ErrorKind::ResourceExhausted:
      return "resource exhausted";
    case ErrorKind::Internal:
      return "internal";
  }
  return "internal";
}

}  // namespace engine
