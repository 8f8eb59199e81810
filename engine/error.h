// The engine's error value: a message a user can act on (which file, key or request, and what
// is wrong). Functions that can fail on bad input return std::expected<T, Error>.
#pragma once

#include <string>

namespace engine {

struct Error {
  std::string message;
};

}  // namespace engine
