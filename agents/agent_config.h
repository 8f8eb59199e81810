// Typed agent configurations: what the tournament config's `agents:` entries become (the YAML
// loader in arena/config fills them; tests build them directly), and the factory that makes an
// Agent from one. Every field has its default here; docs/config.md documents them.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "agents/agent.h"
#include "base/enum_names.h"
#include "engine/api.h"

namespace agents::backend {
class SharedBackends;
}

namespace agents {

// How moves are written in prompts and read from answers.
enum class Notation { San, Uci, Korean };
// How an LLM agent's answer is produced.
enum class OutputMode { Constrained, Free, Reason };
// What a free-mode agent does when every retry failed.
enum class OnFailure { Forfeit, RandomMove, Resign };
// What an LLM agent sends each move.
enum class HistoryMode { None, Conversation };
// Where an LLM agent's requests go.
enum class BackendKind { Engine, OpenAi };
// The remote server's own constraint field for constrained mode.
enum class RemoteConstraint { Vllm, LlamaServer, None };
// The OpenAI endpoint used.
enum class Endpoint { Chat, Completions };
// How a fleet of replicas (several `endpoints:`) shares an agent's requests.
enum class Routing { PrefixAffinity, LeastLoaded, RoundRobin };

// Each enum's names, as the YAML config spells them: the one table that to_string and parse read.
inline constexpr base::EnumTable<Notation, 3> kNotationNames{
    {{Notation::San, "san"}, {Notation::Uci, "uci"}, {Notation::Korean, "korean"}}};
inline constexpr base::EnumTable<OutputMode, 3> kOutputModeNames{
    {{OutputMode::Constrained, "constrained"}, {OutputMode::Free, "free"}, {OutputMode::Reason, "reason"}}};
inline constexpr base::EnumTable<OnFailure, 3> kOnFailureNames{
    {{OnFailure::Forfeit, "forfeit"}, {OnFailure::RandomMove, "random_move"}, {OnFailure::Resign, "resign"}}};
inline constexpr base::EnumTable<HistoryMode, 2> kHistoryModeNames{
    {{HistoryMode::None, "none"}, {HistoryMode::Conversation, "conversation"}}};
inline constexpr base::EnumTable<BackendKind, 2> kBackendKindNames{
    {{BackendKind::Engine, "engine"}, {BackendKind::OpenAi, "openai"}}};
inline constexpr base::EnumTable<RemoteConstraint, 3> kRemoteConstraintNames{
    {{RemoteConstraint::Vllm, "vllm"},
     {RemoteConstraint::LlamaServer, "llama_server"},
     {RemoteConstraint::None, "none"}}};
inline constexpr base::EnumTable<Endpoint, 2> kEndpointNames{
    {{Endpoint::Chat, "chat"}, {Endpoint::Completions, "completions"}}};
inline constexpr base::EnumTable<Routing, 3> kRoutingNames{{{Routing::PrefixAffinity, "prefix_affinity"},
                                                            {Routing::LeastLoaded, "least_loaded"},
                                                            {Routing::RoundRobin, "round_robin"}}};

// to_string / parse for each enum, through its table.
const char* to_string(Notation v);
const char* to_string(OutputMode v);
const char* to_string(OnFailure v);
const char* to_string(HistoryMode v);
const char* to_string(BackendKind v);
const char* to_string(RemoteConstraint v);
const char* to_string(Endpoint v);
const char* to_string(Routing v);
std::optional<Notation> parse_notation(std::string_view s);
std::optional<OutputMode> parse_output_mode(std::string_view s);
std::optional<OnFailure> parse_on_failure(std::string_view s);
std::optional<HistoryMode> parse_history_mode(std::string_view s);
std::optional<BackendKind> parse_backend_kind(std::string_view s);
std::optional<RemoteConstraint> parse_remote_constraint(std::string_view s);
std::optional<Endpoint> parse_endpoint(std::string_view s);
std::optional<Routing> parse_routing(std::string_view s);

// One replica of a fleet: its URL, its share of the ring (weight) and its own key variable ("" =
// the fleet's api_key_env).
struct OpenAiReplica {
  std::string base_url;
  int32_t weight = 1;
  std::string api_key_env;
};

// An OpenAI-compatible server (vLLM, SGLang, llama-server, Ollama, arena serve), or a fleet of
// them (`endpoints`, routed by the client: agents/backend/fleet.h).
struct OpenAiBackendConfig {
  std::string base_url;                  // e.g. "http://127.0.0.1:8000/v1"; unused when `endpoints` is given
  std::vector<OpenAiReplica> endpoints;  // a fleet of replicas serving the same model
  Routing routing = Routing::PrefixAffinity;
  uint64_t routing_seed = 0;  // places the replicas on the prefix_affinity ring
  // The session key (agent and game) goes out in this header and the OpenAI `user` field, so an
  // external router (vLLM's, SGLang's) keeps a game on one replica; "" sends no header.
  std::string session_header = "X-Session-ID";
  std::string model;        // the server's model name
  std::string api_key_env;  // name of the environment variable holding the key ("" = no key)
  Endpoint endpoint = Endpoint::Chat;
  RemoteConstraint constraint = RemoteConstraint::Vllm;
  std::chrono::milliseconds timeout{60000};  // per HTTP request
  int32_t max_concurrency = 8;  // requests in flight to this server from this agent (all its seats)
  int32_t max_retries = 3;      // on 429 / 503 / connection errors, with backoff
  std::chrono::milliseconds backoff{500};  // first backoff; doubles each retry
};

struct LlmAgentConfig {
  std::string model;  // the model's name in the tournament's `models:` (backend engine)
  BackendKind backend = BackendKind::Engine;
  OpenAiBackendConfig openai;  // backend openai
  // Prompts: the system prompt (shared by every agent that uses the same text) and the per-move
  // template with {placeholders}; empty means the built-in default for the game.
  std::string system_prompt;
  std::string move_template;
  std::string prompt_source;         // where the prompts came from (file names), for error messages
  std::optional<Notation> notation;  // default: san for chess, korean for janggi
  OutputMode mode = OutputMode::Constrained;
  HistoryMode history = HistoryMode::None;
  bool chat = true;  // apply the model's chat template
  // Sampling; its max_tokens is the tokens per answer (free mode; reason mode's answer).
  engine::SamplingParams sampling{.max_tokens = 32};
  // Free mode.
  int32_t max_retries = 2;
  OnFailure on_failure = OnFailure::Forfeit;
  // Reason mode.
  int32_t reasoning_tokens = 128;
  std::string reasoning_marker = "Move:";
};

struct UciAgentConfig {
  std::string command;  // executable path (PATH is searched)
  std::vector<std::string> args;
  std::map<std::string, std::string> options;  // setoption name K value V, in order given
  std::optional<int32_t> skill_level;          // "Skill Level"
  std::optional<int32_t> elo;                  // UCI_LimitStrength + UCI_Elo
  int32_t threads = 1;
  int32_t hash_mb = 16;
  // Per-move limits (at least one, or the tournament's clock): movetime wins over depth/nodes.
  std::optional<std::chrono::milliseconds> movetime;
  std::optional<int32_t> depth;
  std::optional<int64_t> nodes;
  std::chrono::milliseconds startup_timeout{10000};  // uci / isready answers
  std::chrono::milliseconds move_margin{1000};       // grace past the deadline before "timeout"
};

// Why a UCI option cannot be sent, or nullopt: it goes out as one `setoption name K value V`
// line, so a line break in its name or value would send the engine a second command.
std::optional<std::string> uci_option_problem(const std::string& name, const std::string& value);

struct SearchAgentConfig {
  std::optional<int32_t> depth = 3;
  std::optional<int64_t> nodes;
  std::optional<std::chrono::milliseconds> movetime;
  uint64_t seed = 0;  // breaks ties between equal moves
};

struct RandomAgentConfig {
  uint64_t seed = 0;
};

// One agent of the tournament config.
struct AgentConfig {
  std::string name;
  std::vector<std::string> variants;  // games it may play; empty = every game its type supports
  std::variant<LlmAgentConfig, UciAgentConfig, SearchAgentConfig, RandomAgentConfig> params;

  // "llm", "uci", "search", "random".
  const char* type() const;
};

// A model the arena has opened, and the one engine serving it (shared by every agent on it).
struct ModelBinding {
  std::string name;
  engine::LoadedModel* model = nullptr;
  engine::Engine* engine = nullptr;
};

// Reads an environment variable (unset: nullopt). Library code never calls getenv itself: the
// application passes this function in (the CLI's arena::cli::process_env, or a test's table).
using EnvReader = std::function<std::optional<std::string>(const std::string& name)>;

// What the factory needs from the arena: its models by name (nullptr when unknown).
struct AgentEnvironment {
  std::function<const ModelBinding*(const std::string& name)> find_model;
  EnvReader get_env;  // the OpenAI key, PATH for UCI engines
  // When set, every instance of one remote (OpenAI) agent made through this environment shares
  // one backend, so its max_concurrency bounds the agent's requests over all its games; unset,
  // each instance has its own.
  std::shared_ptr<backend::SharedBackends> shared_backends;
};

// A problem making an agent (unknown model, missing engine binary, no chat template, ...).
struct AgentError {
  std::string message;
};

// Makes the agent `config` describes.
std::expected<std::unique_ptr<Agent>, AgentError> make_agent(const AgentConfig& config,
                                                             const AgentEnvironment& env);

}  // namespace agents
