// constant_time_equal: every byte of `given` is compared (against the secret repeated), the
// differences OR-ed together, and no branch depends on the data.
#include "arena/server/constant_time.h"

#include <cstddef>
#include <cstdint>

namespace arena::server {

bool constant_time_equal(std::string_view given, std::string_view secret) {
  // A length difference makes the result false without an early return.
  size_t diff = given.size() ^ secret.size();
  if (secret.empty()) return given.empty();  // the secret's emptiness is not secret
  // volatile: the compiler may not turn the loop into an early-exit memcmp.
  volatile uint8_t acc = 0;
  for (size_t i = 0; i < given.size(); ++i)
    acc = acc | static_cast<uint8_t>(static_cast<uint8_t>(given[i]) ^
                                     static_cast<uint8_t>(secret[i % secret.size()]));
  return (diff | acc) == 0;
}

}  // namespace arena::server
