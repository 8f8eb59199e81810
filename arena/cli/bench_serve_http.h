// The agent workload of `arena bench serve` (engine/tools/serve_workload.h) against an
// OpenAI-compatible server (arena serve, llama-server, vLLM): the same prompts as token-id
// arrays to /v1/completions (llama-server: its own /completion, as its /v1/completions takes
// only text prompts), streamed (SSE, TTFT at the first content chunk), max_tokens G,
// temperature 0, ignore_eos, all N requests of a tick in flight at once. Each answer is appended
// to its conversation as the token ids the server returned (return_token_ids / return_tokens)
// or, when it returns none, as its text re-tokenized with the local model's tokenizer. Every
// wait (resolve, connect, write, read) has a deadline. The requests go through the agents' HTTP
// client (agents/backend/http_client.h), SSE reading included.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "engine/api.h"
#include "engine/tools/serve_workload.h"

namespace arena::cli {

// What the probe of an endpoint found (GET /v1/models, and /props for llama.cpp's server).
struct EndpointInfo {
  std::string url;             // as given, e.g. http://127.0.0.1:8081
  std::string model_id;        // data[0].id of /v1/models, sent as "model"
  std::string owned_by;        // data[0].owned_by ("arena", "llamacpp", "vllm", ...)
  int64_t context = 0;         // tokens one request may span; 0 = unknown
  std::string context_source;  // where `context` came from ("/props n_ctx", ...)
  std::string route;           // where completions go: /v1/completions (llama.cpp: /completion)
};

// One run of the workload against one endpoint, a tick at a time (as ServeWorkloadRun).
class HttpServeRun {
 public:
  // Probes `url` (within `timeout`) and checks every agent's last prompt and answer fit the
  // server's context when it reports one; an error a user can act on when the endpoint does
  // not answer, is not an OpenAI-compatible server, or its context is too small.
  // Several `urls` are a fleet of replicas routed by `routing` (each probed alike).
  static std::expected<std::unique_ptr<HttpServeRun>, std::string> create(
      const std::vector<std::string>& urls, agents::Routing routing, const engine::Tokenizer& tokenizer,
      int32_t vocab, const engine::ServeWorkload& workload, std::chrono::milliseconds timeout);
  ~HttpServeRun();

  const EndpointInfo& info() const;
  // Sends every agent's request of the next tick at once and waits (each within the timeout)
  // for all answers; a failed request is counted, not an error. Returns the tick's seconds.
  double run_tick();
  // What the ticks so far measured (engine_side false: no queue, KV or preemption figures).
  engine::ServeRunStats stats() const;
  // How answers were appended: "token ids", "re-tokenized text" or both with counts.
  std::string answer_source() const;
  // A fleet: the policy and the requests each replica got ("routed round_robin: URL n URL n"); "" else.
  std::string routing_summary() const;
  // Each distinct failure message with how often it happened.
  const std::map<std::string, int64_t>& failures() const;

  struct State;  // the requests' state (bench_serve_http.cpp)

 private:
  explicit HttpServeRun(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// What is wrong with an --endpoint URL (not http://HOST[:PORT][/v1]), or nothing.
std::optional<std::string> endpoint_url_error(const std::string& url);

// Splits "URL[,URL...]" items (each --endpoint may be a comma list) into URLs.
std::vector<std::string> split_endpoints(const std::vector<std::string>& items);
// The comma list of `urls` (a fleet, one item for split_endpoints).
std::string join_endpoints(const std::vector<std::string>& urls);

}  // namespace arena::cli
