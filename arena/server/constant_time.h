// A comparison of secrets (the API key) whose running time does not depend on where the two
// strings first differ, so that timing the server's answers does not reveal the key a byte at
// a time.
#pragma once

#include <string_view>

namespace arena::server {

// Whether `given` equals `secret`. The time depends on given.size() only (which the caller knows
// anyway), never on the contents of either or on the secret's length.
bool constant_time_equal(std::string_view given, std::string_view secret);

}  // namespace arena::server
