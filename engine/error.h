// The engine's error value: a message a user can act on (which file, key or request, and what
// is wrong) and a kind a caller can branch on. Functions that can fail on bad input return
// std::expected<T, Error>; running out of a resource that frees up later returns std::optional.
#pragma once

#include <string>

namespace engine {

enum class ErrorKind {
  InvalidArgument,    // a request, option or configuration that can never work as given
  NotFound,           // a file that does not exist or cannot be opened
  InvalidFile,        // a model or vocabulary file that cannot be read (corrupt, truncated, inconsistent)
  Unsupported,        // a well-formed model or option this engine cannot serve
  ResourceExhausted,  // a full queue or too little memory, now
  Internal,           // a broken invariant (a bug): report it
};

// "invalid argument", "not found", "invalid file", "unsupported", "resource exhausted", "internal".
const char* to_string(ErrorKind kind);

struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::InvalidArgument;
};

}  // namespace engine
