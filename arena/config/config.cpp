// The names of the tournament enums as the YAML config spells them.
#include "arena/config/config.h"

#include <array>
#include <string_view>

#include "agents/enum_names.h"

namespace arena::config {
namespace {

constexpr std::array<const char*, 3> kFormats = {"round_robin", "double_round_robin", "gauntlet"};
constexpr std::array<const char*, 2> kOpeningOrders = {"sequential", "random"};
constexpr std::array<const char*, 4> kDeadlinePolicies = {"wait", "random_move", "forfeit_move",
                                                          "loss_on_time"};

}  // namespace

const char* to_string(Format v) {
  return kFormats[static_cast<size_t>(v)];
}
const char* to_string(OpeningOrder v) {
  return kOpeningOrders[static_cast<size_t>(v)];
}
const char* to_string(DeadlinePolicy v) {
  return kDeadlinePolicies[static_cast<size_t>(v)];
}

std::optional<Format> parse_format(std::string_view s) {
  return agents::parse_enum_name<Format>(kFormats, s);
}
std::optional<OpeningOrder> parse_opening_order(std::string_view s) {
  return agents::parse_enum_name<OpeningOrder>(kOpeningOrders, s);
}
std::optional<DeadlinePolicy> parse_deadline_policy(std::string_view s) {
  return agents::parse_enum_name<DeadlinePolicy>(kDeadlinePolicies, s);
}

}  // namespace arena::config
