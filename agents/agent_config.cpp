// The names of the agent-config enums (as the YAML config spells them) and AgentConfig::type().
#include "agents/agent_config.h"

#include <array>
#include <string_view>

#include "agents/enum_names.h"

namespace agents {
namespace {

// The names of an enum's values, in declaration order.
constexpr std::array<const char*, 3> kNotations = {"san", "uci", "korean"};
constexpr std::array<const char*, 3> kOutputModes = {"constrained", "free", "reason"};
constexpr std::array<const char*, 3> kOnFailures = {"forfeit", "random_move", "resign"};
constexpr std::array<const char*, 2> kHistoryModes = {"none", "conversation"};
constexpr std::array<const char*, 2> kBackendKinds = {"engine", "openai"};
constexpr std::array<const char*, 3> kRemoteConstraints = {"vllm", "llama_server", "none"};
constexpr std::array<const char*, 2> kEndpoints = {"chat", "completions"};

}  // namespace

const char* to_string(Notation v) {
  return kNotations[static_cast<size_t>(v)];
}
const char* to_string(OutputMode v) {
  return kOutputModes[static_cast<size_t>(v)];
}
const char* to_string(OnFailure v) {
  return kOnFailures[static_cast<size_t>(v)];
}
const char* to_string(HistoryMode v) {
  return kHistoryModes[static_cast<size_t>(v)];
}
const char* to_string(BackendKind v) {
  return kBackendKinds[static_cast<size_t>(v)];
}
const char* to_string(RemoteConstraint v) {
  return kRemoteConstraints[static_cast<size_t>(v)];
}
const char* to_string(Endpoint v) {
  return kEndpoints[static_cast<size_t>(v)];
}

std::optional<Notation> parse_notation(std::string_view s) {
  return parse_enum_name<Notation>(kNotations, s);
}
std::optional<OutputMode> parse_output_mode(std::string_view s) {
  return parse_enum_name<OutputMode>(kOutputModes, s);
}
std::optional<OnFailure> parse_on_failure(std::string_view s) {
  return parse_enum_name<OnFailure>(kOnFailures, s);
}
std::optional<HistoryMode> parse_history_mode(std::string_view s) {
  return parse_enum_name<HistoryMode>(kHistoryModes, s);
}
std::optional<BackendKind> parse_backend_kind(std::string_view s) {
  return parse_enum_name<BackendKind>(kBackendKinds, s);
}
std::optional<RemoteConstraint> parse_remote_constraint(std::string_view s) {
  return parse_enum_name<RemoteConstraint>(kRemoteConstraints, s);
}
std::optional<Endpoint> parse_endpoint(std::string_view s) {
  return parse_enum_name<Endpoint>(kEndpoints, s);
}

const char* AgentConfig::type() const {
  constexpr std::array<const char*, 4> kTypes = {"llm", "uci", "search", "random"};
  return kTypes[params.index()];
}

}  // namespace agents
