// The tournament enums by name (their tables are in config.h).
#include "arena/config/config.h"

#include <string_view>

namespace arena::config {

const char* to_string(Format v) {
  return base::enum_name(kFormatNames, v);
}
const char* to_string(OpeningOrder v) {
  return base::enum_name(kOpeningOrderNames, v);
}
const char* to_string(DeadlinePolicy v) {
  return base::enum_name(kDeadlinePolicyNames, v);
}

std::optional<Format> parse_format(std::string_view s) {
  return base::enum_value(kFormatNames, s);
}
std::optional<OpeningOrder> parse_opening_order(std::string_view s) {
  return base::enum_value(kOpeningOrderNames, s);
}
std::optional<DeadlinePolicy> parse_deadline_policy(std::string_view s) {
  return base::enum_value(kDeadlinePolicyNames, s);
}

}  // namespace arena::config
