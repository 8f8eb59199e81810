// The agent-config enums by name (their tables are in agent_config.h) and AgentConfig::type().
#include "agents/agent_config.h"

#include <array>
#include <string_view>

namespace agents {

const char* to_string(Notation v) {
  return base::enum_name(kNotationNames, v);
}
const char* to_string(OutputMode v) {
  return base::enum_name(kOutputModeNames, v);
}
const char* to_string(OnFailure v) {
  return base::enum_name(kOnFailureNames, v);
}
const char* to_string(HistoryMode v) {
  return base::enum_name(kHistoryModeNames, v);
}
const char* to_string(BackendKind v) {
  return base::enum_name(kBackendKindNames, v);
}
const char* to_string(RemoteConstraint v) {
  return base::enum_name(kRemoteConstraintNames, v);
}
const char* to_string(Endpoint v) {
  return base::enum_name(kEndpointNames, v);
}
const char* to_string(Routing v) {
  return base::enum_name(kRoutingNames, v);
}

std::optional<Notation> parse_notation(std::string_view s) {
  return base::enum_value(kNotationNames, s);
}
std::optional<OutputMode> parse_output_mode(std::string_view s) {
  return base::enum_value(kOutputModeNames, s);
}
std::optional<OnFailure> parse_on_failure(std::string_view s) {
  return base::enum_value(kOnFailureNames, s);
}
std::optional<HistoryMode> parse_history_mode(std::string_view s) {
  return base::enum_value(kHistoryModeNames, s);
}
std::optional<BackendKind> parse_backend_kind(std::string_view s) {
  return base::enum_value(kBackendKindNames, s);
}
std::optional<RemoteConstraint> parse_remote_constraint(std::string_view s) {
  return base::enum_value(kRemoteConstraintNames, s);
}
std::optional<Endpoint> parse_endpoint(std::string_view s) {
  return base::enum_value(kEndpointNames, s);
}
std::optional<Routing> parse_routing(std::string_view s) {
  return base::enum_value(kRoutingNames, s);
}

std::optional<std::string> uci_option_problem(const std::string& name, const std::string& value) {
  if ((name + value).find_first_of("\r\n") == std::string::npos) return std::nullopt;
  return "UCI option '" + name + "': a line break in its name or value would send the engine another command";
}

const char* AgentConfig::type() const {
  constexpr std::array<const char*, 4> kTypes = {"llm", "uci", "search", "random"};
  return kTypes[params.index()];
}

}  // namespace agents
